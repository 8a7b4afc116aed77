// The one place that opens SQLite: pragmas and migrations. A connection is never shared across
// threads; the main thread and each worker call openDatabase() for their own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

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

/** Applies every migration newer than `PRAGMA user_version`, each in its own transaction. */
export function migrate(db: Db, migrations = listMigrations()): number {
  let current = schemaVersion(db);
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
    current = m.version;
  }
  return current;
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
