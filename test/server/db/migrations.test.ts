import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listMigrations, migrate, openDatabase, schemaVersion } from '../../../server/db/open.ts';

test('every migration applies to a fresh database and the schema version is the highest', () => {
  const db = openDatabase(':memory:');
  const all = listMigrations();
  assert.equal(schemaVersion(db), Math.max(...all.map((m) => m.version)));
  assert.deepEqual(
    db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all(),
    all.map((m) => m.version),
  );
});

test('a migration numbered below one already applied still runs (modules land from branches)', () => {
  const db = openDatabase(':memory:', { migrate: false });
  const one = { version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER) STRICT;' };
  const five = { version: 5, name: 'five', sql: 'CREATE TABLE e (x INTEGER) STRICT;' };
  const three = { version: 3, name: 'three', sql: 'CREATE TABLE c (x INTEGER) STRICT;' };
  migrate(db, [one, five]);
  assert.equal(schemaVersion(db), 5);
  migrate(db, [one, three, five]);
  assert.ok(db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'c'").get());
  assert.equal(schemaVersion(db), 5);
  migrate(db, [one, three, five]);
  assert.equal(
    db.prepare('SELECT count(*) FROM schema_migrations').pluck().get() as number,
    3,
    'nothing runs twice',
  );
});

test('a failing migration leaves nothing half-applied', () => {
  const db = openDatabase(':memory:', { migrate: false });
  const bad = { version: 2, name: 'bad', sql: 'CREATE TABLE ok1 (x INTEGER); CREATE TABLE broken (;' };
  assert.throws(() => migrate(db, [bad]));
  assert.equal(db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'ok1'").get(), undefined);
  assert.equal(schemaVersion(db), 0);
});

test('008 splits tool_calls into rows and origins and keeps every call readable as before', () => {
  const db = openDatabase(':memory:', { migrate: false });
  const all = listMigrations();
  migrate(
    db,
    all.filter((m) => m.version < 8),
  );
  const insert = db.prepare(
    `INSERT INTO tool_calls (at, tool, module, transport, mcp_session, client_name, client_version,
       agent_session, duration_ms, ok, error_category, response_bytes, truncated)
     VALUES (?, ?, 'kernel', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (let i = 0; i < 300; i++) {
    const mcp = i % 3 !== 0;
    insert.run(
      1_000 + i,
      `cos_tool_${i % 4}`,
      mcp ? 'mcp' : 'rest',
      mcp ? `session-${i % 5}` : null,
      mcp ? 'agent-client' : null,
      mcp ? `1.${i % 2}` : null,
      i % 7 === 0 ? `agent-${i}` : null,
      i / 10,
      i % 11 === 0 ? 0 : 1,
      i % 11 === 0 ? 'not_found' : null,
      i * 3,
      i % 13 === 0 ? 1 : 0,
    );
  }
  const before = db.prepare('SELECT * FROM tool_calls ORDER BY id').all();
  migrate(db, all);
  assert.deepEqual(db.prepare('SELECT * FROM tool_calls ORDER BY id').all(), before);
  // 4 tools × (REST, and MCP over 5 sessions × 2 versions) that occur: each origin stored once.
  const origins = db.prepare('SELECT count(*) FROM tool_call_origins').pluck().get() as number;
  assert.ok(origins < 60, `${origins} origins for 300 calls`);

  // The view still takes INSERT and DELETE, as the old table did.
  db.prepare(
    "INSERT INTO tool_calls (at, tool, module, transport, duration_ms, ok, response_bytes, truncated) VALUES (5000, 'cos_new', 'kernel', 'rest', 1, 1, 10, 0)",
  ).run();
  const added = db.prepare("SELECT * FROM tool_calls WHERE tool = 'cos_new'").get() as Record<
    string,
    unknown
  >;
  assert.equal(added.at, 5000);
  assert.equal(added.transport, 'rest');
  db.prepare('DELETE FROM tool_calls WHERE at < 1100').run();
  assert.equal(db.prepare('SELECT count(*) FROM tool_calls WHERE at < 1100').pluck().get(), 0);
  assert.equal(db.prepare('SELECT count(*) FROM tool_calls').pluck().get(), 201);

  // Reading the view costs a key lookup per row, never a scan of the origins.
  const plan = (sql: string) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
  assert.match(
    plan('SELECT tool FROM tool_calls WHERE at >= 0'),
    /^SEARCH r USING INDEX tool_call_rows_at \(at>\?\); SEARCH o USING INTEGER PRIMARY KEY \(rowid=\?\)/,
  );
});
