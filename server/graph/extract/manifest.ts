// Manifests without a grammar: package.json, pyproject.toml, requirements*.txt, go.mod, Cargo.toml.
// Each declared dependency becomes a `requires` edge from the manifest to a dependency node.
import type { Extraction, FileFacts } from '../types.ts';
import { Builder } from './common.ts';

type Dep = NonNullable<FileFacts['deps']>[number];

export function extractManifest(path: string, text: string): Extraction {
  const b = new Builder(path, text);
  const base = path.slice(path.lastIndexOf('/') + 1);
  let deps: Dep[] = [];
  let error: string | undefined;
  try {
    if (base === 'package.json') deps = npmDeps(text);
    else if (base === 'pyproject.toml') deps = pyprojectDeps(text);
    else if (base.startsWith('requirements')) deps = requirementsDeps(text);
    else if (base === 'go.mod') deps = goDeps(text);
    else if (base === 'Cargo.toml') deps = cargoDeps(text);
  } catch (err) {
    error = `manifest not readable: ${(err as Error).message}`;
  }
  const lines = text.split('\n');
  for (const d of deps) {
    const idx = lines.findIndex((l) => l.includes(d.name));
    b.ref({ type: 'requires', from: b.fileUid, name: d.name, line: idx + 1 || 1, col: 1 });
  }
  if (deps.length) b.facts.deps = deps;
  return b.result(error);
}

function npmDeps(text: string): Dep[] {
  const json = JSON.parse(text) as Record<string, Record<string, string> | undefined>;
  const out: Dep[] = [];
  for (const [field, dev] of [
    ['dependencies', false],
    ['devDependencies', true],
    ['peerDependencies', false],
    ['optionalDependencies', false],
  ] as const) {
    for (const [name, version] of Object.entries(json[field] ?? {})) {
      if (!out.some((d) => d.name === name))
        out.push({ name, version: String(version), ecosystem: 'npm', dev });
    }
  }
  return out;
}

/** Python distribution names normalised the way imports usually spell them (PEP 503, `-` → `_`). */
const pyName = (spec: string) =>
  (/^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec)?.[1] ?? '').toLowerCase().replace(/[-.]/g, '_');

function pyprojectDeps(text: string): Dep[] {
  const out: Dep[] = [];
  let table = '';
  let inArray = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const t = /^\[([^\]]+)\]$/.exec(line);
    if (t) {
      table = t[1]!.trim();
      inArray = false;
      continue;
    }
    if (table === 'project' && /^(dependencies|optional-dependencies)\s*=\s*\[/.test(line)) inArray = true;
    if (inArray || /^\[project\.optional-dependencies\]/.test(table)) {
      for (const m of line.matchAll(/"([^"]+)"|'([^']+)'/g)) {
        const name = pyName(m[1] ?? m[2] ?? '');
        if (name) out.push({ name, ecosystem: 'pypi' });
      }
      if (line.includes(']')) inArray = false;
      continue;
    }
    if (/^tool\.poetry\.(dev-)?dependencies$|^tool\.poetry\.group\.[^.]+\.dependencies$/.test(table)) {
      const k = /^([A-Za-z0-9._-]+)\s*=/.exec(line);
      if (k && k[1] !== 'python') out.push({ name: pyName(k[1]!), ecosystem: 'pypi' });
    }
  }
  return out;
}

function requirementsDeps(text: string): Dep[] {
  return text
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('-'))
    .map((l) => ({ name: pyName(l), ecosystem: 'pypi' }))
    .filter((d) => d.name);
}

function goDeps(text: string): Dep[] {
  const out: Dep[] = [];
  let block = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (/^require\s*\($/.test(line)) block = true;
    else if (block && line === ')') block = false;
    else {
      const m = block ? /^(\S+)\s+(\S+)/.exec(line) : /^require\s+(\S+)\s+(\S+)/.exec(line);
      if (m) out.push({ name: m[1]!, version: m[2]!, ecosystem: 'go' });
    }
  }
  return out;
}

function cargoDeps(text: string): Dep[] {
  const out: Dep[] = [];
  let table = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const t = /^\[([^\]]+)\]$/.exec(line);
    if (t) {
      table = t[1]!.trim();
      const sub = /^(?:target\.[^\]]+\.)?(dev-|build-)?dependencies\.([A-Za-z0-9_-]+)$/.exec(table);
      if (sub) out.push({ name: sub[2]!.replace(/-/g, '_'), ecosystem: 'crates', dev: sub[1] === 'dev-' });
      continue;
    }
    if (/^(?:target\..+\.)?(dev-|build-)?dependencies$/.test(table)) {
      const k = /^([A-Za-z0-9_-]+)\s*=/.exec(line);
      // Crate names are imported with underscores.
      if (k) out.push({ name: k[1]!.replace(/-/g, '_'), ecosystem: 'crates', dev: table.startsWith('dev') });
    }
  }
  return out;
}
