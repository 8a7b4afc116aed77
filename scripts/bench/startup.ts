// Start-up benchmark (issue 21): the package's built `cos` (dist/cos.js, what `npm install -g` runs)
// against today's start-up, the sources through tsx (server/bin/cos.mjs, what a clone runs), in the
// same run and alternately, so the machine's load hits both alike.
//
//   node --import tsx scripts/bench/startup.ts [--runs N] [--files N] [--only version,serve,index]
//                                              [--cos label=path/to/cos.js …]
//
// --cos replaces the two commands compared (first is the baseline), e.g. an installed package's
// <prefix>/lib/node_modules/cos-hub/dist/cos.js, or another build of dist/ to compare build options.
// - version: `cos --version`, spawn to exit.
// - serve: `cos serve --port 0` on an empty git repository (fresh state each run), spawn to the first
//   200 from /api/health.
// - index: `cos index` on a generated 2,000-file mixed repository (TypeScript, TSX, JavaScript, Python,
//   Go, Rust, Java, Markdown; fresh state each run), spawn to the start of the extract phase (the
//   "extract…" line it prints when its output is not a terminal), then it is stopped.
// Each figure is wall time (what a user waits) and the process's CPU time at that moment (utime +
// stime of every thread, /proc; it moves less than wall time when other processes share the cores).
// Targets: version < 150 ms, serve < 1,000 ms, index < 300 ms, for the built command.
// Needs `npm run build` first (dist/cos.js).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMs } from '../lib/proc.ts';
import { fmt, table } from './lib.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    files: { type: 'string', default: '2000' },
    only: { type: 'string', default: 'version,serve,index' },
    cos: { type: 'string', multiple: true },
  },
});
const RUNS = Number(values.runs);
const FILES = Number(values.files);
const ONLY = new Set(values.only.split(','));

const VARIANTS: Record<string, readonly string[]> = values.cos
  ? Object.fromEntries(
      values.cos.map((c) => [c.slice(0, c.indexOf('=')), [resolve(c.slice(c.indexOf('=') + 1))]]),
    )
  : { 'sources (tsx)': [join(ROOT, 'server/bin/cos.mjs')], 'built (dist)': [join(ROOT, 'dist/cos.js')] };
const [BASE, BUILT] = Object.keys(VARIANTS) as [string, string];
const TARGETS: Record<string, number> = { version: 150, serve: 1000, index: 300 };

// A user's environment: no hub variables, nothing that loads tsx into the built command.
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith('COS_') && k !== 'NODE_OPTIONS'),
);

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function git(repo: string): void {
  spawnSync('git', ['init', '-q'], { cwd: repo });
}

/** Resolves with the wall and CPU time when `ready(output)` first holds; kills the process then. */
function timeUntil(
  args: string[],
  cwd: string,
  ready: (out: string) => boolean | Promise<boolean>,
  stop: 'kill' | 'wait',
): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child: ChildProcess = spawn(process.execPath, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let done = false;
    const check = async () => {
      if (done || !(await ready(out)) || done) return;
      done = true;
      const wallMs = performance.now() - t0;
      let cpu = Number.NaN;
      try {
        cpu = cpuMs(`/proc/${child.pid}/stat`);
      } catch {}
      if (stop === 'kill') child.kill('SIGKILL');
      child.once('exit', () => resolve({ wallMs, cpuMs: cpu }));
      if (child.exitCode !== null) resolve({ wallMs, cpuMs: cpu });
    };
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      void check();
    });
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString();
      void check();
    });
    child.on('exit', (code) => {
      if (!done) reject(new Error(`${args.join(' ')} exited (${code}) before it was ready:\n${out}`));
    });
  });
}

/** `node <args>` (`cos --version`, or bare Node's `-e 0`): spawn to exit. */
function timeExit(args: string[], cwd: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let cpu = Number.NaN;
    // The last CPU reading before exit: poll the stat file while the process lives.
    const poll = setInterval(() => {
      try {
        cpu = cpuMs(`/proc/${child.pid}/stat`);
      } catch {}
    }, 5);
    child.on('exit', (code) => {
      clearInterval(poll);
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}`));
      else resolve({ wallMs: performance.now() - t0, cpuMs: cpu });
    });
  });
}

async function timeServe(cos: readonly string[], repo: string): Promise<Sample> {
  rmSync(join(repo, '.cos'), { recursive: true, force: true });
  let healthy = false;
  let asking = false;
  return timeUntil(
    [...cos, 'serve', '--port', '0'],
    repo,
    async (out) => {
      if (healthy) return true;
      const m = /MCP\s+(http:\/\/\S+)\/mcp/.exec(out);
      if (!m || asking) return false;
      asking = true;
      // The URL is printed once it listens; ask until the health route answers 200.
      for (;;) {
        try {
          const res = await fetch(`${m[1]}/api/health`);
          await res.arrayBuffer();
          if (res.status === 200) {
            healthy = true;
            return true;
          }
        } catch {}
        await new Promise((r) => setTimeout(r, 2));
      }
    },
    'kill',
  );
}

function timeIndex(cos: readonly string[], repo: string): Promise<Sample> {
  rmSync(join(repo, '.cos'), { recursive: true, force: true });
  return timeUntil([...cos, 'index'], repo, (out) => out.includes('extract…'), 'kill');
}

/** A mixed repository: per language, files with imports, classes and functions, a few KB each. */
function mixedRepo(files: number): string {
  const repo = mkdtempSync(join(tmpdir(), 'cos-bench-startup-'));
  const kinds: [string, number, (i: number) => string][] = [
    [
      'ts',
      0.3,
      (i) =>
        `import { helper${i % 50} } from '../shared/h${i % 50}.ts';\n\nexport interface Item${i} { id: number; name: string }\n\n` +
        Array.from(
          { length: 12 },
          (_, k) =>
            `export function fn${i}_${k}(items: Item${i}[]): number {\n  return items.filter((x) => x.id > ${k}).map((x) => helper${i % 50}(x.name)).length;\n}\n`,
        ).join('\n') +
        `\nexport class Service${i} {\n  constructor(private readonly items: Item${i}[]) {}\n  count(): number { return fn${i}_0(this.items); }\n}\n`,
    ],
    [
      'tsx',
      0.08,
      (i) =>
        `import { useState } from 'react';\n\nexport function Widget${i}({ label }: { label: string }) {\n  const [n, setN] = useState(0);\n  return <button onClick={() => setN(n + 1)}>{label} {n}</button>;\n}\n`,
    ],
    [
      'js',
      0.1,
      (i) =>
        `const { readFileSync } = require('node:fs');\n\nfunction load${i}(p) {\n  return JSON.parse(readFileSync(p, 'utf8'));\n}\n\nmodule.exports = { load${i} };\n`.repeat(
          3,
        ),
    ],
    [
      'py',
      0.2,
      (i) =>
        `import os\nfrom typing import List\n\n\nclass Model${i}:\n    def __init__(self, names: List[str]):\n        self.names = names\n\n` +
        Array.from(
          { length: 10 },
          (_, k) =>
            `    def method_${k}(self) -> int:\n        return len([n for n in self.names if len(n) > ${k}])\n`,
        ).join('\n') +
        `\n\ndef main_${i}():\n    print(Model${i}(os.listdir('.')).method_0())\n`,
    ],
    [
      'go',
      0.08,
      (i) =>
        `package pkg${i % 20}\n\nimport "strings"\n\ntype T${i} struct{ Name string }\n\nfunc (t T${i}) Upper() string { return strings.ToUpper(t.Name) }\n\nfunc New${i}(n string) T${i} { return T${i}{Name: n} }\n`,
    ],
    [
      'rs',
      0.05,
      (i) =>
        `pub struct S${i} { pub n: u32 }\n\nimpl S${i} {\n    pub fn double(&self) -> u32 { self.n * 2 }\n}\n\npub fn make_${i}() -> S${i} { S${i} { n: ${i} } }\n`,
    ],
    [
      'java',
      0.04,
      (i) =>
        `package com.example;\n\nimport java.util.List;\n\npublic class C${i} {\n  private final List<String> names;\n  public C${i}(List<String> names) { this.names = names; }\n  public int size() { return names.size(); }\n}\n`,
    ],
    [
      'md',
      0.15,
      (i) =>
        `# Note ${i}\n\nSome text about part ${i}.\n\n## Details\n\n${'A paragraph of prose that explains things. '.repeat(20)}\n\n## See also\n\n- [other](note-${(i + 1) % 100}.md)\n`,
    ],
  ];
  let n = 0;
  for (const [ext, share, make] of kinds) {
    const count = Math.round(files * share);
    for (let i = 0; i < count && n < files; i++, n++) {
      const path = join(repo, ext === 'md' ? 'docs' : `src/${ext}`, `d${i % 40}`, `f${i}.${ext}`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, make(i));
    }
  }
  for (let i = 0; i < 50; i++) {
    mkdirSync(join(repo, 'src/shared'), { recursive: true });
    writeFileSync(
      join(repo, `src/shared/h${i}.ts`),
      `export const helper${i} = (s: string) => s.length + ${i};\n`,
    );
  }
  git(repo);
  return repo;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/cos.js')))
    throw new Error('dist/cos.js is missing: run npm run build first');
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  const before = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const empty = mkdtempSync(join(tmpdir(), 'cos-bench-empty-'));
  git(empty);
  const mixed = ONLY.has('index') ? mixedRepo(FILES) : empty;
  const samples = new Map<string, Sample[]>();
  const add = (key: string, s: Sample) => samples.set(key, [...(samples.get(key) ?? []), s]);
  // One warm-up of each, not counted: the first spawn pays for the page cache.
  for (const cos of Object.values(VARIANTS)) await timeExit([...cos, '--version'], empty);
  for (let r = 0; r < RUNS; r++) {
    // Alternate the order too, so neither side always runs right after the other's teardown.
    // The floor under every figure: Node starting and exiting with nothing to run.
    add('node', await timeExit(['-e', '0'], empty));
    const order = r % 2 ? Object.keys(VARIANTS).reverse() : Object.keys(VARIANTS);
    for (const v of order) {
      const cos = VARIANTS[v]!;
      if (ONLY.has('version')) add(`version|${v}`, await timeExit([...cos, '--version'], empty));
      if (ONLY.has('serve')) add(`serve|${v}`, await timeServe(cos, empty));
      if (ONLY.has('index')) add(`index|${v}`, await timeIndex(cos, mixed));
    }
  }
  const after = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const rows: (string | number)[][] = [];
  for (const what of ['version', 'serve', 'index'].filter((w) => ONLY.has(w))) {
    const src = samples.get(`${what}|${BASE}`)!;
    const built = samples.get(`${what}|${BUILT}`)!;
    const m = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
    const lo = (xs: Sample[], k: keyof Sample) => Math.min(...xs.map((x) => x[k]));
    rows.push([
      what,
      fmt(m(src, 'wallMs'), 0),
      fmt(m(built, 'wallMs'), 0),
      fmt(lo(src, 'wallMs'), 0),
      fmt(lo(built, 'wallMs'), 0),
      fmt(m(built, 'wallMs') / m(src, 'wallMs'), 2),
      fmt(m(src, 'cpuMs'), 0),
      fmt(m(built, 'cpuMs'), 0),
      `${TARGETS[what]} ms`,
      m(built, 'wallMs') < TARGETS[what]!
        ? 'met (median)'
        : lo(built, 'wallMs') < TARGETS[what]!
          ? 'met (fastest run)'
          : 'missed',
    ]);
  }
  process.stdout.write(
    `node ${process.version}, ${cpus().length} cores, cos ${version}, ${RUNS} runs each, ${FILES}-file mixed repository; load average ${before} before, ${after} after; ${new Date().toISOString()}\n\n`,
  );
  const bare = samples.get('node')!;
  process.stdout.write(
    `bare Node (node -e 0), the floor under every figure: ${fmt(median(bare.map((x) => x.wallMs)), 0)} ms wall (median; fastest ${fmt(Math.min(...bare.map((x) => x.wallMs)), 0)}), ${fmt(median(bare.map((x) => x.cpuMs)), 0)} ms CPU\n\n`,
  );
  process.stdout.write(
    `${table(
      [
        'start-up',
        `${BASE} wall ms (median)`,
        `${BUILT} wall ms (median)`,
        `${BASE} fastest`,
        `${BUILT} fastest`,
        `${BUILT} / ${BASE}`,
        `${BASE} CPU ms`,
        `${BUILT} CPU ms`,
        `target (${BUILT})`,
        'result',
      ],
      rows,
    )}\n`,
  );
  rmSync(empty, { recursive: true, force: true });
  if (mixed !== empty) rmSync(mixed, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:startup: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
