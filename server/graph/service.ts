// The graph service the hub holds: a worker thread that owns indexing, a watcher that feeds it, and
// freshness read from the graph_state row on the main connection. start() never blocks: the hub
// accepts connections at once and tools answer from whatever is indexed so far.
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { type Config, insideRepo } from '../config.ts';
import type { Db, FileIdentity } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import { startThread } from '../threads.ts';
import { ExtractHelpers, type HelperLease } from './helpers.ts';
import type { IndexProgress, IndexResult } from './indexer.ts';
import type { PassQueue } from './pass-queue.ts';
import { WORKER_LIMITS } from './pool.ts';
import type { FromWorker, ToWorker, WorkerData } from './protocol.ts';
import { Walker, type WalkOptions } from './walk.ts';
import { RepoWatcher } from './watcher.ts';

export interface Freshness {
  generation: number;
  /** ISO time of the last completed pass, or null before the first one. */
  last_indexed_at: string | null;
  files_pending: number;
  indexing: boolean;
  /**
   * Place in the hub's queue of full passes (one runs at a time across projects) while this project's
   * waits; absent otherwise.
   */
  queued?: number;
}

export interface ReindexOptions {
  force?: boolean;
  /** Re-read the graph from the database before the pass (after another connection deleted rows). */
  reload?: boolean;
  /** Repo-relative files or directories; omitted = the whole repo. */
  paths?: string[];
  onProgress?: (p: IndexProgress) => void;
}

export interface GraphService {
  /** Starts the worker, a background full pass and the watcher. Returns at once. */
  start(): void;
  reindex(options?: ReindexOptions): Promise<IndexResult>;
  freshness(): Freshness;
  /** Resolves after the first full pass since start() (tools use it to say "still indexing"). */
  ready(): Promise<void>;
  /**
   * Lets the indexer's thread go when it has nothing to do (its model of the repository is most of the
   * graph's memory); the next pass starts a new one, which reads the model back from the database. The
   * watcher keeps running. True when a thread was let go.
   */
  release(): Promise<boolean>;
  close(): Promise<void>;
}

declare module '../hub-services.ts' {
  interface HubServices {
    graph: GraphService;
  }
}

export interface GraphServiceOptions {
  config: Config;
  /** The main thread's connection, migrated; read-only use here. */
  db: Db;
  /** The same database's file: the worker opens its own connection to it. */
  dbPath: string;
  /** Which file dbPath was when the main connection opened it (the worker refuses any other). */
  dbIdentity?: FileIdentity | undefined;
  events: EventBus;
  logger: Logger;
  /** Keep the graph current while the hub runs (default true). */
  watch?: boolean;
  walk?: WalkOptions;
  /**
   * The process's extraction helper threads, shared by every project's indexer (absent: helpers of this
   * service's own, `extractHelpers` of them).
   */
  helpers?: ExtractHelpers | undefined;
  /** Extraction helper threads when `helpers` is absent (default: one per extra core, at most 3). */
  extractHelpers?: number;
  /** Shared by every project of one hub: full passes take turns (absent: no waiting). */
  passQueue?: PassQueue;
}

/**
 * The board's task files are left to the board: it indexes them itself (fields, dependencies, full
 * text), and it rewrites one on every claim, move and work-log line, which would keep the graph
 * re-extracting, re-resolving and writing (CPU and the database's write lock) for headings and links
 * that say nothing about the code. Measured under bench:load in scripts/bench/README.md.
 */
export function withoutTasks(config: Config, walk: WalkOptions | undefined): WalkOptions | undefined {
  const tasks = insideRepo(config.repo, config.tasksDir);
  if (tasks === null) return walk;
  return { ...walk, excludedPaths: [...(walk?.excludedPaths ?? []), tasks] };
}

/** Minimum gap between two index-progress events of the same phase on the bus. */
const PROGRESS_EVERY_MS = 200;

export function createGraphService(serviceOptions: GraphServiceOptions): GraphService {
  const { config, db, dbPath, events, logger } = serviceOptions;
  const options = { ...serviceOptions, walk: withoutTasks(config, serviceOptions.walk) };
  if (dbPath === ':memory:') throw new Error('the graph worker needs a database file, not :memory:');
  const log = logger.child({ module: 'graph' });
  const stateStmt = db.prepare(
    'SELECT generation, last_indexed_at, files_pending FROM graph_state WHERE id = 1',
  );

  let worker: Worker | undefined;
  /** Threads asked to stop (stopWorker): their going is expected, whatever their exit code. */
  const stopping = new WeakSet<Worker>();
  let nextId = 1;
  let closed = false;
  let watcher: RepoWatcher | undefined;
  const requests = new Map<
    number,
    {
      resolve: (r: IndexResult) => void;
      reject: (e: Error) => void;
      onProgress?: ReindexOptions['onProgress'];
      /** The thread the request went to (none while it waits for its turn). */
      sentTo?: Worker;
    }
  >();
  let lastPublished = { phase: '', at: 0 };
  let firstPass: Promise<void> | undefined;

  const publish = (p: IndexProgress, force = false) => {
    const now = Date.now();
    if (!force && p.phase === lastPublished.phase && now - lastPublished.at < PROGRESS_EVERY_MS) return;
    lastPublished = { phase: p.phase, at: now };
    events.publish('index-progress', p);
  };

  /** Fails the requests a thread had when it stopped (a released thread's successor keeps its own). */
  const failAll = (message: string, w: Worker) => {
    for (const [id, r] of requests) {
      if (r.sentTo !== w) continue;
      requests.delete(id);
      r.reject(new Error(message));
    }
  };

  const ownHelpers = options.helpers ? undefined : new ExtractHelpers(options.extractHelpers);
  const helpers = options.helpers ?? ownHelpers!;

  const ensureWorker = (): Worker => {
    if (worker) return worker;
    const lease: HelperLease = helpers.lease();
    const data: WorkerData = {
      dbPath,
      dbIdentity: serviceOptions.dbIdentity,
      repo: config.repo,
      ...(options.walk ? { walk: options.walk } : {}),
      helperPorts: lease.ports,
    };
    // execArgv []: the parent's flags (--test, --inspect …) are not the worker's business.
    const w = startThread(new URL('./worker.ts', import.meta.url), {
      workerData: data,
      transferList: lease.ports,
      execArgv: [],
      resourceLimits: WORKER_LIMITS,
    });
    w.once('exit', () => lease.end());
    w.on('message', (m: FromWorker) => {
      switch (m.type) {
        case 'progress':
          for (const id of m.ids) requests.get(id)?.onProgress?.(m.progress);
          publish(m.progress);
          break;
        case 'done':
          for (const id of m.ids) {
            requests.get(id)?.resolve(m.result);
            requests.delete(id);
          }
          break;
        case 'failed':
          for (const id of m.ids) {
            requests.get(id)?.reject(new Error(m.message));
            requests.delete(id);
          }
          break;
        case 'log':
          log[m.level](m.data ?? {}, m.msg);
          break;
        case 'ready':
          break;
      }
    });
    w.on('error', (err) => {
      log.error({ err }, 'graph worker crashed');
      failAll(`the graph indexer stopped: ${err.message}`, w);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      // A thread asked to stop (closed or released) that had to be terminated is no crash.
      if (!closed && code !== 0 && !stopping.has(w)) log.warn({ code }, 'graph worker exited');
      failAll('the graph indexer stopped', w);
    });
    worker = w;
    return w;
  };

  const sendIndex = (id: number, opts: ReindexOptions) => {
    const w = ensureWorker();
    const request = requests.get(id);
    if (request) request.sentTo = w;
    w.postMessage({
      type: 'index',
      id,
      ...(opts.force ? { force: true } : {}),
      ...(opts.reload ? { reload: true } : {}),
      ...(opts.paths ? { paths: opts.paths } : {}),
    } satisfies ToWorker);
  };

  // The full pass waiting for its turn in the hub's queue, if any: further full requests join it
  // rather than queue a second one behind it.
  const { passQueue } = options;
  const stopWaiting = new AbortController();
  let waiting: { ids: number[]; force: boolean; reload: boolean } | undefined;

  const queueFull = (id: number, opts: ReindexOptions): void => {
    if (waiting) {
      waiting.ids.push(id);
      waiting.force ||= opts.force === true;
      waiting.reload ||= opts.reload === true;
      return;
    }
    const job = { ids: [id], force: opts.force === true, reload: opts.reload === true };
    waiting = job;
    passQueue!.acquire(service, stopWaiting.signal).then(
      (release) => {
        waiting = undefined;
        const [first, ...joined] = job.ids;
        if (closed || !requests.has(first!)) {
          release();
          return;
        }
        // One pass answers every request that joined it; the turn ends with that pass.
        const all = job.ids.flatMap((id) => {
          const r = requests.get(id);
          return r ? [r] : [];
        });
        const finish = () => {
          release();
          for (const j of joined) requests.delete(j);
        };
        requests.set(first!, {
          resolve: (r) => {
            finish();
            for (const each of all) each.resolve(r);
          },
          reject: (e) => {
            finish();
            for (const each of all) each.reject(e);
          },
          onProgress: (p) => {
            for (const each of all) each.onProgress?.(p);
          },
        });
        sendIndex(first!, { force: job.force, reload: job.reload });
      },
      (err: Error) => {
        waiting = undefined;
        for (const id of job.ids) {
          requests.get(id)?.reject(err);
          requests.delete(id);
        }
      },
    );
  };

  const reindex = (opts: ReindexOptions = {}): Promise<IndexResult> => {
    if (closed) return Promise.reject(new Error('the graph service is closed'));
    const id = nextId++;
    return new Promise<IndexResult>((resolve, reject) => {
      requests.set(id, { resolve, reject, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
      if (passQueue && !opts.paths) queueFull(id, opts);
      else sendIndex(id, opts);
    });
  };

  /** Asks the thread to finish and waits for it to go, at most about 15 s. */
  const stopWorker = async (w: Worker): Promise<void> => {
    stopping.add(w);
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    w.postMessage({ type: 'close' } satisfies ToWorker);
    // A pass in progress finishes its current batch; don't wait on a stuck worker forever.
    const timeout = setTimeout(() => {
      log.info('the graph worker did not stop within 5 s of being asked; terminating it');
      void w.terminate();
    }, 5000);
    // terminate() can stall too (a thread still loading its modules): after that, give up waiting
    // and unref the thread, so neither close() nor the process can hang on it.
    let giveUp: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      giveUp = setTimeout(resolve, 10_000);
    });
    await Promise.race([exited, gaveUp]);
    clearTimeout(timeout);
    clearTimeout(giveUp);
    w.unref();
  };

  const service: GraphService = {
    start() {
      if (firstPass || closed) return;
      firstPass = reindex().then(
        (r) => {
          log.info(
            {
              files: r.filesSeen,
              changed: r.filesChanged,
              nodes: r.nodes,
              edges: r.edges,
              ms: Math.round(r.durationMs),
            },
            'graph indexed',
          );
        },
        (err: Error) => {
          if (!closed) log.error({ err }, 'graph index failed');
        },
      );
      if (options.watch !== false) {
        const walker = new Walker(config.repo, options.walk);
        watcher = new RepoWatcher(
          config.repo,
          walker,
          (batch) => {
            reindex(batch.full ? {} : { paths: batch.paths }).catch((err: Error) => {
              // Passes cut short by close() are expected; anything else is worth a warning.
              if (!closed) log.warn({ err }, 'graph update failed');
            });
          },
          log,
          undefined,
          undefined,
          options.walk?.ignoredDirs,
        );
        watcher.start();
      }
    },
    reindex,
    freshness() {
      const s = stateStmt.get() as {
        generation: number;
        last_indexed_at: number | null;
        files_pending: number;
      };
      return {
        generation: s.generation,
        last_indexed_at: s.last_indexed_at === null ? null : new Date(s.last_indexed_at).toISOString(),
        files_pending: s.files_pending + (watcher?.pending ?? 0),
        indexing: requests.size > (waiting?.ids.length ?? 0),
        ...(waiting && passQueue ? { queued: passQueue.position(service) ?? 1 } : {}),
      };
    },
    ready() {
      return firstPass ?? Promise.resolve();
    },
    async release() {
      const w = worker;
      if (!w || closed || requests.size > 0) return false;
      // From here on a new request starts a new thread; this one only finishes closing.
      worker = undefined;
      await stopWorker(w);
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      stopWaiting.abort(new Error('the graph service is closed'));
      watcher?.close();
      const w = worker;
      if (w) await stopWorker(w);
      await ownHelpers?.close();
    },
  };
  return service;
}
