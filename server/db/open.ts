// The one place that opens SQLite: pragmas and migrations. A connection is never shared across
// threads; the main thread and each worker call openDatabase() for their own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

/** The hub's database file, in the state directory. */
export const DB_FILE_NAME = 'hub.db';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url).pathname;

export interface OpenOptions {
  /** Run pending migrations (default true). Worker threads opened after the main thread pass false. */
  migrate?: boolean;
  readonly?: boolean;
  /** Milliseconds to wait on a locked database before SQLITE_BUSY (default 5000). */
  busyTimeoutMs?: number;
}

/** Opens `path` (a file, or ':memory:') with the hub's pragmas and brings its schema up to date. */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const db = new Database(path, { readonly: options.readonly ?? false });
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  if (!options.readonly) {
    if (path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  if (options.migrate !== false && !options.readonly) migrate(db);
  return db;
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Migrations are `NNN-name.sql` files; the number is the schema version they bring the database to. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 3)),
      name: f.slice(4, -4),
      sql: readFileSync(join(dir, f), 'utf8'),
    }));
}

/**
 * Applies every migration not applied yet, in order, each in its own transaction, and records it in
 * schema_migrations. Applied versions are tracked one by one (not only the highest) because modules
 * are built on branches: a migration numbered below one already applied must still run.
 * `PRAGMA user_version` mirrors the highest applied version for tools that read it.
 */
export function migrate(db: Db, migrations = listMigrations()): number {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT',
  );
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const record = db.prepare(
    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
  );
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name);
      const highest = db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() as number;
      db.pragma(`user_version = ${highest}`);
    }).immediate();
  }
  return schemaVersion(db);
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Whether this SQLite build has FTS5 (cos_health reports it; FTS-backed tools answer `unavailable` without it). */
export function hasFts5(db: Db): boolean {
  try {
    db.exec('CREATE VIRTUAL TABLE temp.__fts5_probe USING fts5(x); DROP TABLE temp.__fts5_probe;');
    return true;
  } catch {
    return false;
  }
}

/** The files attached to a connection (`PRAGMA database_list`), for error forensics. */
export function attachedFiles(db: Db): { name: string; file: string }[] {
  try {
    return (db.pragma('database_list') as { name: string; file: string }[]).map(({ name, file }) => ({
      name,
      file,
    }));
  } catch {
    return [];
  }
}
