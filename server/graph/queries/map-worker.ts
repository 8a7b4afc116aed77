// The map computation's thread (map-cache.ts starts one per computation of a large graph): its own
// read-only connection, one computeMap, the model posted back (typed arrays are copied, not shared).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../db/open.ts';
import { computeMap } from './map-model.ts';

const port = parentPort;
if (!port) throw new Error('map-worker.ts runs only as a worker thread');
const { dbPath } = workerData as { dbPath: string };
try {
  const db = openDatabase(dbPath, { migrate: false, readonly: true });
  try {
    port.postMessage({ ok: true, model: computeMap(db) });
  } finally {
    db.close();
  }
} catch (err) {
  port.postMessage({ ok: false, message: (err as Error).message });
}
