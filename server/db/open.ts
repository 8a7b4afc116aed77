// The one place that opens SQLite: pragmas and migrations. A connection is never shared across
// threads; the main thread and each worker call openDatabase() for their own.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE_NAME } from './file-name.ts';

export type Db = Database.Database;

export { DB_FILE_NAME } from './file-name.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url).pathname;

export interface OpenOptions {
  /** Run pending migrations (default true). Worker threads opened after the main thread pass false. */
  migrate?: boolean;
  readonly?: boolean;
  /** Milliseconds to wait on a locked database before SQLITE_BUSY (default 5000). */
  busyTimeoutMs?: number;
  /**
   * Run `PRAGMA quick_check` before migrating (the hub and `cos index` on start): a damaged file throws
   * DatabaseDamagedError instead of being served. It reads every page once: 0.3–0.7 s for a 58 MB
   * hub.db on this 2-core machine under load.
   */
  check?: boolean;
  /**
   * The file the hub's main connection opened: a connection joining it (a worker's) refuses to use
   * another file found at the path (hub.db replaced under the hub), whose pages it would otherwise mix
   * with the old file's -wal.
   */
  sameFileAs?: FileIdentity | undefined;
}

/** Which file a path named when it was opened. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

export function fileIdentity(path: string): FileIdentity | undefined {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? { dev: st.dev, ino: st.ino } : undefined;
}

export const sameFile = (a: FileIdentity | undefined, b: FileIdentity | undefined): boolean =>
  a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;

/** Opens `path` (a file, or ':memory:') with the hub's pragmas and brings its schema up to date. */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  // A connection opened after the main thread's (a worker's) never creates the file: one deleted under
  // the hub would otherwise come back empty, schema-less, beside the hub's own.
  const joining = options.migrate === false;
  const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: joining });
  try {
    // Checked before the first statement: SQLite has not read the -wal yet.
    if (options.sameFileAs && !sameFile(fileIdentity(path), options.sameFileAs))
      throw Object.assign(
        new Error(`${DB_FILE_NAME} was replaced or deleted after the hub opened it; restart the hub`),
        { code: 'COS_DB_MOVED' },
      );
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    if (!options.readonly) {
      // WAL is a property of the file, set by the first opener; asking again from a joining connection
      // would wait for an exclusive lock on a file truncated under the hub.
      if (path !== ':memory:' && !joining) db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    if (options.check) checkDatabase(db);
    if (options.migrate !== false && !options.readonly) migrate(db);
  } catch (err) {
    // A damaged or unwritable file: the caller reports it; no handle is left open on it.
    db.close();
    throw err;
  }
  return db;
}

/** Thrown by checkDatabase(): the start-up's one-line refusal reads its code and message. */
export class DatabaseDamagedError extends Error {
  readonly code = 'COS_DB_DAMAGED';
  constructor(readonly detail: string) {
    super(`${DB_FILE_NAME} failed its integrity check: ${detail}`);
    this.name = 'DatabaseDamagedError';
  }
}

/**
 * `PRAGMA quick_check` on a just-opened database: throws DatabaseDamagedError when it finds damage (a
 * file SQLite cannot read at all already threw SQLITE_NOTADB or SQLITE_CORRUPT when it was opened).
 */
export function checkDatabase(db: Db): void {
  const rows = db.pragma('quick_check(3)', { simple: false }) as { quick_check: string }[];
  const found = rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
  if (found.length > 0) throw new DatabaseDamagedError(found.join('; ').replace(/\s+/g, ' ').slice(0, 200));
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
