// The map model, computed lazily on the first ask of each graph generation and kept beside the
// connection until the graph changes. A large graph is computed in a worker thread of its own (its own
// read-only connection, the same snapshot rules), so no request holds the event loop while Louvain and
// PageRank run; a small one is computed in place (a few milliseconds, less than starting a thread).
// Concurrent asks of one generation share one computation.
import { dbCache } from '../../db/caches.ts';
import type { Db } from '../../db/open.ts';
import { ToolError } from '../../errors.ts';
import { startThread } from '../../threads.ts';
import { computeMap, type MapModel, type PackedMapModel, unpackMap } from './map-model.ts';

interface Entry {
  /** The model of the newest generation computed (possibly older than the graph now). */
  model?: MapModel;
  /** The computation under way, and the generation it started at. */
  pending?: { generation: number; promise: Promise<MapModel> };
  /** Answers derived from the model (overview text, the SessionStart map), per generation. */
  derived: Map<string, unknown>;
}

const cache = dbCache<Entry>();

/**
 * Graphs with more edges than this are computed in a worker thread. In place, fastify's lib/ (about
 * 2,000 edges) held the event loop 16–117 ms on this loaded 2-core machine: too long for a request.
 */
export const MAP_WORKER_EDGES = 1_000;
let workerEdges = MAP_WORKER_EDGES;

/** Tests: lower the threshold so a small repository takes the worker path (or raise it to stay inline). */
export function setMapWorkerThreshold(edges: number): void {
  workerEdges = edges;
}

function entryOf(db: Db): Entry {
  let e = cache.get(db);
  if (!e) {
    e = { derived: new Map() };
    cache.set(db, e);
  }
  return e;
}

function generationOf(db: Db): number {
  return (db.prepare('SELECT generation FROM graph_state WHERE id = 1').pluck().get() ?? 0) as number;
}

/**
 * About how many edges the graph has, without counting them (a count scans 100,000s of index entries
 * on this thread): the highest rowid, an upper bound once edges were deleted, which only sends a graph
 * to the worker a little sooner.
 */
function edgesAbout(db: Db): number {
  return (db.prepare('SELECT max(rowid) FROM graph_edges').pluck().get() ?? 0) as number;
}

function inWorker(dbPath: string): Promise<MapModel> {
  return new Promise((resolve, reject) => {
    const worker = startThread(new URL('./map-worker.ts', import.meta.url), { workerData: { dbPath } });
    // A computation never keeps the process alive, and a hub that closes meanwhile just drops it.
    worker.unref();
    worker.once('message', (m: { ok: true; model: PackedMapModel } | { ok: false; message: string }) => {
      void worker.terminate();
      if (m.ok) resolve(unpackMap(m.model));
      // The thread's message can name the database's absolute path: kept as the cause, not shown.
      else
        reject(new ToolError('internal', 'the repository map could not be computed', { cause: m.message }));
    });
    worker.once('error', (err) => {
      reject(new ToolError('internal', 'the repository map could not be computed', { cause: err }));
    });
    worker.once('exit', (code) => {
      reject(
        new ToolError('unavailable', `the map computation stopped (exit ${code}); ask again`, {
          retryable: true,
        }),
      );
    });
  });
}

/** The model of the current generation: the cached one, or a new computation (shared by concurrent asks). */
export function mapModel(db: Db): Promise<MapModel> {
  const e = entryOf(db);
  const generation = generationOf(db);
  if (e.model && e.model.generation === generation) return Promise.resolve(e.model);
  if (e.pending && e.pending.generation === generation) return e.pending.promise;
  const file = db.name;
  const large = file !== ':memory:' && file !== '' && edgesAbout(db) > workerEdges;
  const promise = (large ? inWorker(file) : Promise.resolve().then(() => computeMap(db))).then(
    (model) => {
      if (!e.model || model.generation >= e.model.generation) {
        e.model = model;
        e.derived.clear();
      }
      if (e.pending?.promise === promise) e.pending = undefined;
      return model;
    },
    (err: unknown) => {
      if (e.pending?.promise === promise) e.pending = undefined;
      throw err;
    },
  );
  e.pending = { generation, promise };
  return promise;
}

/** The model already computed, whatever its generation (undefined before the first computation). */
export function cachedMapModel(db: Db): MapModel | undefined {
  return cache.get(db)?.model;
}

/** Whether the cached model is of the graph's current generation. */
export function isCurrent(db: Db, model: MapModel): boolean {
  return model.generation === generationOf(db);
}

/** A value derived from the model, computed once per model (the overview text, the session map). */
export function derived<T>(db: Db, model: MapModel, key: string, make: () => T): T {
  const e = entryOf(db);
  if (e.model !== model) return make();
  if (!e.derived.has(key)) e.derived.set(key, make());
  return e.derived.get(key) as T;
}
