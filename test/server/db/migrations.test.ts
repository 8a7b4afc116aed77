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
