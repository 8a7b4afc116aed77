// The indexer's thread: its own SQLite connection (the main thread has migrated the schema already),
// one pass at a time. Requests that arrive during a pass are merged into the next one: watcher bursts
// become one incremental pass, and a full request absorbs any path requests queued with it.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.ts';
import { Indexer } from './indexer.ts';
import { ExtractPool } from './pool.ts';
import type { FromWorker, ToWorker, WorkerData } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts runs only as a worker thread');
const data = workerData as WorkerData;
const db = openDatabase(data.dbPath, { migrate: false, sameFileAs: data.dbIdentity });
const pool = new ExtractPool(data.helperPorts);
const writeEdges = pool.edgeWriter({ path: data.dbPath, identity: data.dbIdentity });
const indexer = new Indexer({
  repo: data.repo,
  db,
  extract: pool.extract,
  ...(writeEdges ? { writeEdges } : {}),
  ...(data.walk ? { walk: data.walk } : {}),
});
const send = (m: FromWorker) => port.postMessage(m);

interface Pending {
  ids: number[];
  full: boolean;
  force: boolean;
  reload: boolean;
  paths: Set<string>;
}
let pending: Pending | undefined;
let running = false;
let closing = false;
// Closing stops a pass between batches rather than waiting for a whole cold index to finish.
const stop = new AbortController();

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  while (pending && !closing) {
    const job = pending;
    pending = undefined;
    try {
      const result = await indexer.run({
        force: job.force,
        reload: job.reload,
        ...(job.full ? {} : { paths: [...job.paths] }),
        onProgress: (progress) => send({ type: 'progress', ids: job.ids, progress }),
        signal: stop.signal,
      });
      send({ type: 'done', ids: job.ids, result });
    } catch (err) {
      send({ type: 'failed', ids: job.ids, message: (err as Error).message });
      // The hub stopping mid-pass aborts it on purpose: what was written stays, the rest is picked up
      // by the next start. Not an error.
      const stopped = closing && stop.signal.aborted && (err as Error).name === 'AbortError';
      send({
        type: 'log',
        level: stopped ? 'info' : 'error',
        msg: stopped ? 'graph index pass stopped: the hub is closing' : 'graph index pass failed',
        data: stopped ? {} : { err: String((err as Error).stack) },
      });
    }
  }
  running = false;
  if (closing) finish();
}

function finish(): void {
  pool.close();
  try {
    db.close();
  } finally {
    port!.close();
  }
}

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'close') {
    closing = true;
    stop.abort();
    if (!running) finish();
    return;
  }
  pending ??= { ids: [], full: false, force: false, reload: false, paths: new Set() };
  pending.ids.push(msg.id);
  pending.force ||= msg.force === true;
  pending.reload ||= msg.reload === true;
  if (!msg.paths) pending.full = true;
  else for (const p of msg.paths) pending.paths.add(p);
  void drain();
});

send({ type: 'ready' });
