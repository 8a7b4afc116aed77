// Project-wide facts resolution needs: tsconfig paths/baseUrl, the Go module path, and which package
// names the manifests declare (imports of those become dependency nodes rather than externals).
import { ConfinedRoot } from '../fs/confined.ts';

export interface TsPaths {
  /** Repo-relative directory that `paths` targets are relative to. */
  base: string;
  paths: { prefix: string; suffix: string; wildcard: boolean; targets: string[] }[];
}

export function readTsPaths(root: string): TsPaths | undefined {
  const files = new ConfinedRoot(root);
  for (const name of ['tsconfig.json', 'jsconfig.json']) {
    const text = files.readText(name);
    if (text === undefined) continue;
    const json = parseJsonc(text) as {
      compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> };
    };
    const co = json?.compilerOptions;
    if (!co || (co.baseUrl === undefined && co.paths === undefined)) return undefined;
    const base = normalize(co.baseUrl ?? '.');
    const paths = Object.entries(co.paths ?? {}).map(([key, targets]) => {
      const star = key.indexOf('*');
      return star === -1
        ? { prefix: key, suffix: '', wildcard: false, targets }
        : { prefix: key.slice(0, star), suffix: key.slice(star + 1), wildcard: true, targets };
    });
    if (co.baseUrl !== undefined) paths.push({ prefix: '', suffix: '', wildcard: true, targets: ['*'] });
    return { base, paths };
  }
  return undefined;
}

/** JSON with comments and trailing commas (tsconfig's dialect). */
export function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2);
      i = i === -1 ? text.length : i + 2;
    } else {
      out += c;
      i++;
    }
  }
  try {
    return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
  } catch {
    return undefined;
  }
}

/** `a/./b/../c` → `a/c`; leading `./` dropped; '' for the root. Returns undefined above the root. */
export function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return '..';
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

export function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? '' : path.slice(0, i);
}

export function joinPath(dir: string, rel: string): string {
  return normalize(dir ? `${dir}/${rel}` : rel);
}

/** The package name of a bare import specifier: `@scope/name/sub` → `@scope/name`, `node:fs` → `node:fs`. */
export function packageName(spec: string): string {
  if (spec.startsWith('@')) return spec.split('/').slice(0, 2).join('/');
  return spec.split('/')[0] ?? spec;
}
