// The thread that writes recorded tool calls into tool_calls (see call-writer.ts). Plain JavaScript on
// purpose: it needs nothing but better-sqlite3, and loading TypeScript through tsx would cost a thread
// more to start than everything it does. Batches arrive as call-batch.ts encodes them: seven numbers a
// row in a Float64Array, the repeating strings once per origin; they are written as tool_call_rows and
// tool_call_origins (migration 008). Every committed row is added to the shared counter, which the
// main thread waits on when a query must see every call.

import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { dbPath, dbIdentity, busyTimeoutMs, rowsPerInsert, maxPending, retryMs, committed } = workerData;
const counter = new Int32Array(committed);

// The batch layout of call-batch.ts (FIELDS and the field offsets).
const FIELDS = 7;
const [AT, ORIGIN, DURATION_MS, OUTCOME, RESPONSE_BYTES, TRUNCATED, AGENT] = [0, 1, 2, 3, 4, 5, 6];
// tool_call_rows' columns, in the order of the values below; ORIGIN_AT is where the origin goes.
const COLUMNS = [
  'at',
  'origin',
  'agent_session',
  'duration_ms',
  'ok',
  'error_category',
  'response_bytes',
  'truncated',
];
const WIDTH = COLUMNS.length;
const ORIGIN_AT = 1;

/**
 * The main thread's origin numbers → { strings: [tool, module, transport, mcp_session, client_name,
 * client_version], id: its tool_call_origins.id once written }.
 */
let origins = new Map();
function learn(rows) {
  for (const [number, ...strings] of rows) if (!origins.has(number)) origins.set(number, { strings });
}
learn(workerData.origins);
// Ids a thread before this one wrote (it was let go while the project was idle): reused, not written anew.
for (const [number, id] of workerData.originIds ?? []) {
  const origin = origins.get(number);
  if (origin) origin.id = id;
}

// The hub's main thread created and migrated the file; a thread started after it was deleted must not
// create an empty one in its place, nor use another file put in its place (whose pages SQLite would mix
// with the old file's -wal): checked before the first statement reads anything.
const db = new Database(dbPath, { fileMustExist: true });
if (dbIdentity) {
  const st = statSync(dbPath, { throwIfNoEntry: false });
  if (!st || st.dev !== dbIdentity.dev || st.ino !== dbIdentity.ino) {
    db.close();
    throw Object.assign(
      new Error('hub.db was replaced or deleted after the hub opened it; restart the hub'),
      {
        code: 'COS_DB_MOVED',
      },
    );
  }
}
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma('synchronous = NORMAL');

const row = `(${COLUMNS.map(() => '?').join(', ')})`;
const statements = new Map();
function insertFor(rows) {
  let statement = statements.get(rows);
  if (!statement) {
    statement = db.prepare(
      `INSERT INTO tool_call_rows (${COLUMNS.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')}`,
    );
    statements.set(rows, statement);
  }
  return statement;
}
const ORIGIN_COLUMNS = 'tool, module, transport, mcp_session, client_name, client_version, last_at';
const newOrigin = db
  .prepare(`INSERT INTO tool_call_origins (${ORIGIN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`)
  .pluck();
// Re-creates an origin that retention removed while this thread still used it (ids are never reused).
const touchOrigin = db.prepare(
  `INSERT INTO tool_call_origins (id, ${ORIGIN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (id) DO UPDATE SET last_at = max(last_at, excluded.last_at)`,
);

/**
 * `values`: WIDTH values a row, the origin as the main thread numbers it. The origins the rows name
 * are written (or touched) in the same transaction, and numbers become ids in a copy per INSERT.
 */
const writeAll = db.transaction((values) => {
  const latest = new Map();
  for (let i = 0; i < values.length; i += WIDTH) {
    const number = values[i + ORIGIN_AT];
    const at = values[i];
    if (!(latest.get(number) >= at)) latest.set(number, at);
  }
  const ids = new Map();
  for (const [number, at] of latest) {
    const origin = origins.get(number);
    if (!origin) throw new Error(`a recorded call names origin ${number}, which was never sent`);
    if (origin.id === undefined) ids.set(number, newOrigin.get(...origin.strings, at));
    else {
      touchOrigin.run(origin.id, ...origin.strings, at);
      ids.set(number, origin.id);
    }
  }
  const chunk = rowsPerInsert * WIDTH;
  for (let from = 0; from < values.length; from += chunk) {
    const part = values.slice(from, from + chunk);
    for (let i = ORIGIN_AT; i < part.length; i += WIDTH) part[i] = ids.get(part[i]);
    insertFor(part.length / WIDTH).run(part);
  }
  return ids;
});

/** Appends a batch's rows to `into` as column values. */
function decode({ rows, count, texts }, into) {
  for (let i = 0; i < count; i++) {
    const base = i * FIELDS;
    const outcome = rows[base + OUTCOME];
    const agent = rows[base + AGENT];
    into.push(
      rows[base + AT],
      rows[base + ORIGIN],
      agent < 0 ? null : texts[agent],
      rows[base + DURATION_MS],
      outcome < 0 ? 1 : 0,
      outcome < 0 ? null : texts[outcome],
      rows[base + RESPONSE_BYTES],
      rows[base + TRUNCATED],
    );
  }
}

/** After the main thread forgot its origins: keep only those that rows still waiting here name. */
function forgetOrigins() {
  const named = new Set();
  for (let i = ORIGIN_AT; i < pending.length; i += WIDTH) named.add(pending[i]);
  origins = new Map([...origins].filter(([number]) => named.has(number)));
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
    // Ids are kept only once their transaction has committed.
    for (const [number, id] of writeAll.immediate(values)) origins.get(number).id = id;
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
    if (message.resetOrigins) forgetOrigins();
    learn(message.origins);
    decode(message, pending);
    if (!retry) drain();
  } else if (message.type === 'close') {
    if (retry) clearTimeout(retry);
    retry = undefined;
    drain();
    db.close();
    const ids = [...origins].flatMap(([number, origin]) =>
      origin.id === undefined ? [] : [[number, origin.id]],
    );
    parentPort.postMessage({ type: 'closed', unwritten: pending.length / WIDTH, ids });
    parentPort.close();
  }
});
