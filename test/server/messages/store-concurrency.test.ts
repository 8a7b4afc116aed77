// The SQLite message store beside another writer of the same hub.db (the call writer and log sink are
// threads with connections of their own): an ack reads the recipient rows, then writes them, and must
// take the write lock before it reads. A deferred transaction whose snapshot another connection moved
// on meanwhile gets SQLITE_BUSY at once, without the busy timeout's wait.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { openDatabase } from '../../../server/db/open.ts';
import { createSqliteMessageStore } from '../../../server/messages/store.ts';

// Commits one small row after another into a table of its own, until told to stop.
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.exec('CREATE TABLE IF NOT EXISTS other_writer (n INTEGER)');
const insert = db.prepare('INSERT INTO other_writer (n) VALUES (?)');
let stop = false;
parentPort.on('message', () => { stop = true; });
let n = 0;
const loop = () => {
  for (let i = 0; i < 50 && !stop; i++) insert.run(n++);
  if (stop) { db.close(); parentPort.postMessage(n); } else setImmediate(loop);
};
parentPort.postMessage('ready');
loop();
`;

test('acks go through while another connection commits to the same file all along', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-messages-'));
  const db = openDatabase(join(dir, 'hub.db'));
  const worker = new Worker(WRITER, { eval: true, workerData: { file: join(dir, 'hub.db') } });
  try {
    await new Promise((resolve) => worker.once('message', resolve));
    const store = createSqliteMessageStore(db);
    const ids = Array.from({ length: 300 }, (_, i) => `msg-${i}`);
    for (const [i, id] of ids.entries())
      store.add(
        {
          id,
          thread_id: id,
          sender: 'cc-a',
          machine: 'machine-a',
          addressed: 'cc-b',
          subject: null,
          body: `n${i}`,
          urgent: false,
          created_at: i,
        },
        ['cc-b'],
      );
    for (const [i, id] of ids.entries()) {
      const result = await store.ack('cc-b', [id], 1000 + i);
      assert.deepEqual(result.missing, []);
      // A turn of the event loop now and then, so the other thread's commits interleave.
      if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(store.unread('cc-b'), 0);
  } finally {
    const written = new Promise<number>((resolve) => worker.once('message', resolve));
    worker.postMessage('stop');
    assert.ok((await written) > 0, 'the other connection wrote meanwhile');
    await worker.terminate();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
