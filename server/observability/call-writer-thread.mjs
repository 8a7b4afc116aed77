// The thread that writes recorded tool calls into tool_calls (see call-writer.ts). Plain JavaScript on
// purpose: it needs nothing but better-sqlite3, and loading TypeScript through tsx would cost a thread
// more to start than everything it does. Rows arrive as JSON text of arrays in COLUMNS order; every committed row is
// added to the shared counter, which the main thread waits on when a query must see every call.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { dbPath, busyTimeoutMs, columns, rowsPerInsert, maxPending, retryMs, committed } = workerData;
const counter = new Int32Array(committed);

const db = new Database(dbPath);
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma('synchronous = NORMAL');

const row = `(${columns.map(() => '?').join(', ')})`;
const statements = new Map();
function insertFor(rows) {
  let statement = statements.get(rows);
  if (!statement) {
    statement = db.prepare(
      `INSERT INTO tool_calls (${columns.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')}`,
    );
    statements.set(rows, statement);
  }
  return statement;
}

const writeAll = db.transaction((rows) => {
  for (let from = 0; from < rows.length; from += rowsPerInsert) {
    const chunk = rows.slice(from, from + rowsPerInsert);
    insertFor(chunk.length).run(chunk.flat());
  }
});

let pending = [];
let retry;

function drain() {
  if (pending.length === 0) return;
  const rows = pending;
  pending = [];
  try {
    writeAll.immediate(rows);
    Atomics.store(counter, 1, 0);
    Atomics.add(counter, 0, rows.length);
    Atomics.notify(counter, 0);
  } catch (err) {
    // Keep the rows and try again later: a locked or full database must not lose what was recorded.
    // Meanwhile a query must not wait for them: say so, and wake any waiter.
    Atomics.store(counter, 1, 1);
    Atomics.notify(counter, 0);
    pending = rows.concat(pending);
    const dropped = Math.max(0, pending.length - maxPending);
    if (dropped > 0) {
      pending = pending.slice(dropped);
      // Dropped rows will never commit: count them as settled so nobody waits for them.
      Atomics.add(counter, 0, dropped);
      Atomics.notify(counter, 0);
    }
    parentPort.postMessage({
      type: 'failed',
      code: err?.code ?? null,
      message: String(err?.message ?? err),
      dropped,
    });
    retry ??= setTimeout(() => {
      retry = undefined;
      drain();
    }, retryMs);
  }
}

parentPort.on('message', (message) => {
  if (message.type === 'rows') {
    pending.push(...JSON.parse(message.rows));
    if (!retry) drain();
  } else if (message.type === 'close') {
    if (retry) clearTimeout(retry);
    retry = undefined;
    drain();
    db.close();
    parentPort.postMessage({ type: 'closed', unwritten: pending.length });
    parentPort.close();
  }
});
