import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { DB_FILE_NAME, type Db, fileIdentity, openDatabase } from '../db/open.ts';
import { makeDirSync } from '../fs/make-dir.ts';
import { ExtractHelpers } from '../graph/helpers.ts';
import { Indexer, type IndexProgress } from '../graph/indexer.ts';
import { ExtractPool } from '../graph/pool.ts';
import { withoutTasks } from '../graph/service.ts';
import type { EdgeBatch } from '../graph/store.ts';
import { CONFIG_FLAGS_HELP } from './help.ts';
import { hubRequest, openEventStream, unwrap } from './hub-client.ts';
import { findRunningHub, type RunningHub, tokenRefused } from './running-hub.ts';

const BAR = 30;
const PHASES: IndexProgress['phase'][] = ['scan', 'extract', 'resolve', 'done'];

/** One line that redraws in place on a terminal, and a line per phase when the output is a log. */
function progressPrinter(out: NodeJS.WriteStream): { update(p: IndexProgress): void; end(): void } {
  let lastPhase = '';
  let lastDraw = 0;
  return {
    update(p) {
      if (!out.isTTY) {
        if (p.phase !== lastPhase && p.phase !== 'done') out.write(`${p.phase}…\n`);
        lastPhase = p.phase;
        return;
      }
      const now = Date.now();
      if (p.phase === lastPhase && now - lastDraw < 50 && p.done !== p.total) return;
      lastPhase = p.phase;
      lastDraw = now;
      // The four phases share the bar; extraction dominates the time of a cold index.
      const share = { scan: [0, 0.05], extract: [0.05, 0.85], resolve: [0.85, 1], done: [1, 1] }[p.phase];
      const within = p.total > 0 ? p.done / p.total : 0;
      const frac = Math.min(1, share[0]! + (share[1]! - share[0]!) * within);
      const filled = Math.round(frac * BAR);
      out.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${String(Math.round(frac * 100)).padStart(3)}%  ${p.phase.padEnd(8)} ${p.total > 0 ? `${p.done}/${p.total}` : ''}\x1b[K`,
      );
    },
    end() {
      if (out.isTTY && lastPhase) out.write('\n');
    },
  };
}

export const INDEX_HELP = `usage: cos index [--force] [path …]

Brings the code graph up to date with the working tree, with a progress bar: all of it, or only the
repository paths given. While a hub serves the state directory, that hub runs the pass.
  --force           re-extract every file, even those whose content did not change

${CONFIG_FLAGS_HELP}`;

interface ReindexAnswer {
  generation: number;
  files_seen: number;
  files_changed: number;
  files_deleted: number;
  files_failed: number;
  nodes: number;
  edges: number;
  duration_ms: number;
}

function summary(config: Config, r: ReindexAnswer, where: string): string {
  return `indexed ${config.repo}${where}: ${r.files_seen} files seen, ${r.files_changed} extracted, ${r.files_deleted} removed, ${r.files_failed} with parse errors; ${r.nodes} nodes, ${r.edges} edges; generation ${r.generation} in ${(r.duration_ms / 1000).toFixed(2)} s\n`;
}

const repoPaths = (args: string[]) => args.map((p) => p.replace(/^\.\//, '').replace(/\/+$/, ''));

/**
 * Extraction helpers for the command: as many as the hub starts (one per core beyond the first, at most
 * three), but at least two from two cores on. The hub keeps a core for its requests; this command's
 * thread only writes and resolves, and on two cores it and V8's compiler and GC threads left the second
 * core idle about a quarter of the extract phase. Two helpers there indexed issue 16's mix in 4.22 s against 4.59 s
 * with one (median of five alternated runs each, load average 1.6-2.6; 7.3 against 6.8 s of CPU).
 */
function commandHelpers(): number {
  const cores = availableParallelism();
  return cores < 2 ? 0 : Math.min(3, Math.max(2, cores - 1));
}

/** `cos index [--force] [path …]`: brings the code graph of the repository up to date and prints the figures. */
export async function indexCommand(config: Config, args: string[], force: boolean): Promise<number> {
  const running = await findRunningHub(config);
  if (running) return indexViaHub(running, config, args, force);
  // The indexer alone, in this thread, on the hub's database (migrated here as the hub would): not the
  // whole hub, whose other services and tools this command never uses, nor the hub's indexer thread,
  // whose start (a thread and its modules) would come before any work. The first extraction helper
  // starts first: its thread boots while this one opens the database and walks the repository. The
  // others start with the first extraction: booting beside this thread's start on two cores, the
  // second delayed it by about 50 ms (bench:startup, 270 against 323 ms to the extract phase).
  const count = commandHelpers();
  const first = new ExtractHelpers(Math.min(1, count));
  const firstPorts = first.lease().ports;
  const more = new ExtractHelpers(Math.max(0, count - 1));
  let pool: ExtractPool | undefined;
  const poolNow = () => {
    pool ??= new ExtractPool([...firstPorts, ...more.lease().ports]);
    return pool;
  };
  const stop = async () => {
    pool?.close();
    await Promise.all([first.close(), more.close()]);
  };
  const dbPath = join(config.stateDir, DB_FILE_NAME);
  let db: Db;
  try {
    makeDirSync(config.stateDir);
    db = openDatabase(dbPath, {
      busyTimeoutMs: config.dbBusyTimeoutMs,
      check: true,
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const walk = withoutTasks(config, undefined);
  const target = { path: dbPath, identity: fileIdentity(dbPath) };
  const indexer = new Indexer({
    repo: config.repo,
    db,
    extract: (root, jobs) => poolNow().extract(root, jobs),
    ...(count > 0 ? { writeEdges: (batch: EdgeBatch) => poolNow().edgeWriter(target)!(batch) } : {}),
    ...(walk ? { walk } : {}),
  });
  const bar = progressPrinter(process.stderr);
  try {
    const r = await indexer.run({
      ...(force ? { force: true } : {}),
      ...(args.length > 0 ? { paths: repoPaths(args) } : {}),
      onProgress: (p) => {
        if (PHASES.includes(p.phase)) bar.update(p);
      },
    });
    bar.end();
    process.stdout.write(
      summary(
        config,
        {
          generation: r.generation,
          files_seen: r.filesSeen,
          files_changed: r.filesChanged,
          files_deleted: r.filesDeleted,
          files_failed: r.filesFailed,
          nodes: r.nodes,
          edges: r.edges,
          duration_ms: r.durationMs,
        },
        '',
      ),
    );
    return 0;
  } catch (err) {
    bar.end();
    process.stderr.write(`cos index: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await stop();
    db.close();
  }
}

/** The running hub runs the pass (cos_graph_reindex); its live stream carries the progress. */
async function indexViaHub(hub: RunningHub, config: Config, args: string[], force: boolean): Promise<number> {
  if (!hub.authorised) {
    process.stderr.write(`cos index: ${tokenRefused(hub)}\n`);
    return 1;
  }
  const target = { url: hub.url, token: config.token };
  const bar = progressPrinter(process.stderr);
  // The bar is a nicety: without the stream, the pass still runs and its figures are printed.
  const stream = await openEventStream(target, (e) => {
    const p = e.data as Partial<IndexProgress> & { layer?: string };
    if (e.event === 'index-progress' && p.layer === undefined && p.phase && PHASES.includes(p.phase))
      bar.update(p as IndexProgress);
  }).catch(() => undefined);
  try {
    const r = unwrap<ReindexAnswer>(
      await hubRequest(target, 'POST', '/api/graph/reindex', {
        ...(force ? { force: true } : {}),
        ...(args.length > 0 ? { paths: repoPaths(args) } : {}),
      }),
      'cos index',
    );
    bar.end();
    process.stdout.write(summary(config, r, ` (by the hub at ${hub.url}/)`));
    return 0;
  } catch (err) {
    bar.end();
    process.stderr.write(`cos index: ${(err as Error).message}\n`);
    return 1;
  } finally {
    stream?.close();
  }
}
