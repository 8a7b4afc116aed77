// The thread that writes recorded tool calls into tool_calls (see call-writer.ts). Plain JavaScript on
// purpose: it needs nothing but better-sqlite3, and loading TypeScript through tsx would cost a thread
// more to start than everything it does. Batches arrive as call-batch.ts encodes them: seven numbers a
// row in a Float64Array, the repeating strings once per origin. Every committed row is added to the
// shared counter, which the main thread waits on when a query must see every call.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { dbPath, busyTimeoutMs, rowsPerInsert, maxPending, retryMs, committed } = workerData;
const counter = new Int32Array(committed);

// The batch layout of call-batch.ts (FIELDS and the field offsets).
const FIELDS = 7;
const [AT, ORIGIN, DURATION_MS, OUTCOME, RESPONSE_BYTES, TRUNCATED, AGENT] = [0, 1, 2, 3, 4, 5, 6];
const COLUMNS = [
  'at',
  'tool',
  'module',
  'transport',
  'mcp_session',
  'client_name',
  'client_version',
  'agent_session',
  'duration_ms',
  'ok',
  'error_category',
  'response_bytes',
  'truncated',
];
const WIDTH = COLUMNS.length;

/** Origin number → [tool, module, transport, mcp_session, client_name, client_version]. */
let origins = new Map();
function learn(rows) {
  for (const [id, ...strings] of rows) origins.set(id, strings);
}
learn(workerData.origins);

const db = new Database(dbPath);
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma('synchronous = NORMAL');

const row = `(${COLUMNS.map(() => '?').join(', ')})`;
const statements = new Map();
function insertFor(rows) {
  let statement = statements.get(rows);
  if (!statement) {
    statement = db.prepare(
      `INSERT INTO tool_calls (${COLUMNS.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')}`,
    );
    statements.set(rows, statement);
  }
  return statement;
}

/** `values`: WIDTH values a row, in COLUMNS order. */
const writeAll = db.transaction((values) => {
  const chunk = rowsPerInsert * WIDTH;
  for (let from = 0; from < values.length; from += chunk) {
    const part = values.slice(from, from + chunk);
    insertFor(part.length / WIDTH).run(part);
  }
});

/** Appends a batch's rows to `into` as column values. */
function decode({ rows, count, texts }, into) {
  for (let i = 0; i < count; i++) {
    const base = i * FIELDS;
    const origin = origins.get(rows[base + ORIGIN]);
    if (!origin) throw new Error(`a recorded call refers to origin ${rows[base + ORIGIN]}, never sent`);
    const outcome = rows[base + OUTCOME];
    const agent = rows[base + AGENT];
    into.push(
      rows[base + AT],
      origin[0],
      origin[1],
      origin[2],
      origin[3],
      origin[4],
      origin[5],
      agent < 0 ? null : texts[agent],
      rows[base + DURATION_MS],
      outcome < 0 ? 1 : 0,
      outcome < 0 ? null : texts[outcome],
      rows[base + RESPONSE_BYTES],
      rows[base + TRUNCATED],
    );
  }
}

/** Column values of rows not yet committed (WIDTH a row). */
let pending = [];
let retry;

function drain() {
  if (pending.length === 0) return;
  const values = pending;
  pending = [];
  const rows = values.length / WIDTH;
  try {
    writeAll.immediate(values);
    Atomics.store(counter, 1, 0);
    Atomics.add(counter, 0, rows);
    Atomics.notify(counter, 0);
  } catch (err) {
    // Keep the rows and try again later: a locked or full database must not lose what was recorded.
    // Meanwhile a query must not wait for them: say so, and wake any waiter.
    Atomics.store(counter, 1, 1);
    Atomics.notify(counter, 0);
    pending = values.concat(pending);
    const dropped = Math.max(0, pending.length / WIDTH - maxPending);
    if (dropped > 0) {
      pending = pending.slice(dropped * WIDTH);
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
  if (message.type === 'calls') {
    if (message.resetOrigins) origins = new Map();
    learn(message.origins);
    decode(message, pending);
    if (!retry) drain();
  } else if (message.type === 'close') {
    if (retry) clearTimeout(retry);
    retry = undefined;
    drain();
    db.close();
    parentPort.postMessage({ type: 'closed', unwritten: pending.length / WIDTH });
    parentPort.close();
  }
});
