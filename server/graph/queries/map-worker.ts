// The map computation's thread (map-cache.ts starts one per computation of a large graph): its own
// read-only connection, one computeMap, the model posted back packed (map-model.ts: packMap).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../db/open.ts';
import { computeMap, packMap } from './map-model.ts';

const port = parentPort;
if (!port) throw new Error('map-worker.ts runs only as a worker thread');
const { dbPath } = workerData as { dbPath: string };
try {
  const db = openDatabase(dbPath, { migrate: false, readonly: true });
  try {
    const { packed, transfer } = packMap(computeMap(db));
    port.postMessage({ ok: true, model: packed }, transfer);
  } finally {
    db.close();
  }
} catch (err) {
  port.postMessage({ ok: false, message: (err as Error).message });
}
