// The team's PostgreSQL: one bounded pg pool per hub process, the start-up check and migrations, and the
// hub's view of the connection (cos_health). Every domain's team store goes through here, so a lost
// database reads the same everywhere: a team write answers `unavailable` (retryable) within a few
// seconds, never hangs, and is never acknowledged unless PostgreSQL committed it.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import type { Logger } from 'pino';
import { ToolError } from '../errors.ts';
import { type DatabaseTarget, redactSecrets } from './url.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url).pathname;

/** pg_advisory_lock key of the migrations: two hubs starting together never both migrate. */
const MIGRATION_LOCK = 0x636f_7348_7562; // "cosHub"

/** How long a new connection may take before the write answers `unavailable`. */
export const CONNECT_TIMEOUT_MS = 3000;
/**
 * How long one statement may run before PostgreSQL cancels it (`statement_timeout`): the server answers
 * 57014 and rolls back, and the write is `transient` (busy, or queued on another hub's lock).
 */
export const STATEMENT_TIMEOUT_MS = 5000;
/**
 * How long a query may wait for any answer before the database counts as unreachable (client side).
 * Longer than the statement timeout, so a slow statement on a reachable server is cancelled by the server
 * and reads as busy, and a hub whose own event loop was held up for a moment (a burst of work on a loaded
 * machine) does not call a database that answered in time lost; only silence this long means it is gone.
 */
export const READ_TIMEOUT_MS = 2 * STATEMENT_TIMEOUT_MS;
/** Connections one hub holds at most; the listener holds one more of its own. */
export const DEFAULT_POOL_SIZE = 8;
/**
 * How long a write may wait for one of the hub's connections while all are busy with other writes. The
 * wait is not the connect timeout: a hundred writes at once on a reachable database are a queue, not an
 * outage (pg-pool would time the queue with the connect timeout and call the database unreachable).
 */
export const QUEUE_TIMEOUT_MS = 30_000;

export type Queryable = Pick<pg.PoolClient, 'query'>;

export interface TeamConnection {
  /** `connected` once a query succeeded; `down` after a connection failed, until one succeeds again. */
  state: 'connecting' | 'connected' | 'down';
  /** host:port/database, never with the password. */
  database: string;
  /** What failed last, redacted; null while connected. */
  error: string | null;
  /** When the state last changed (ms since the epoch). */
  since: number;
  pool: { total: number; idle: number; waiting: number; max: number };
}

/** SQLSTATE classes and driver codes that mean "the database is not there", not "the query is wrong". */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
]);

export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (CONNECTION_CODES.has(code) || code.startsWith('08')) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|not queryable|Connection ended/i.test(
    message,
  );
}

const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;

/** Serialization failures, deadlocks and lock timeouts: the same write, tried again, will go through. */
function isConflict(err: unknown): boolean {
  const code = codeOf(err);
  return code === '40001' || code === '40P01' || code === '55P03';
}

/**
 * PostgreSQL cancelled the statement at its statement_timeout (57014, query_canceled), as a driver error
 * or the ToolError made of one.
 */
export function isStatementTimeout(err: unknown): boolean {
  return codeOf(err) === '57014' || (err instanceof ToolError && codeOf(err.cause) === '57014');
}

export class TeamDatabase {
  readonly pool: pg.Pool;
  private state: TeamConnection['state'] = 'connecting';
  private error: string | null = null;
  private since = Date.now();
  private closed = false;
  private readonly max: number;
  /** What pg_stat_activity shows for this hub's connections (`cos-hub <machine>`). */
  readonly applicationName: string;

  /** Where connection losses are logged: the first hub's log once it has one (useLogger). */
  private logger: Logger | undefined;
  /** Connections free to check out; the pool is only asked when one is, so it never queues. */
  private free: number;
  /** Writes waiting for a connection, first come first served. */
  private readonly waiting: Array<{ grant: () => void; refuse: (err: unknown) => void }> = [];

  constructor(
    readonly target: DatabaseTarget,
    options: { max?: number; applicationName?: string; logger?: Logger } = {},
  ) {
    this.logger = options.logger;
    this.max = options.max ?? DEFAULT_POOL_SIZE;
    this.free = this.max;
    this.applicationName = options.applicationName ?? 'cos-hub';
    this.pool = new pg.Pool({
      connectionString: target.url,
      max: this.max,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: READ_TIMEOUT_MS,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      application_name: this.applicationName,
      keepAlive: true,
    });
    // An idle client losing its connection (the server restarted) must not crash the process.
    this.pool.on('error', (err) => this.failed(err));
  }

  /** Logs to `logger` from now on, unless a logger was given already. */
  attachLogger(logger: Logger): void {
    this.logger ??= logger.child({ module: 'team' });
  }

  /** One connection's settings, for the listener's own client. */
  clientConfig(): pg.ClientConfig {
    return {
      connectionString: this.target.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      application_name: `${this.applicationName} listen`,
    };
  }

  /**
   * The start-up check: connect, then migrate under an advisory lock. Throws an Error whose message is
   * one line naming the database (never the password) when it cannot.
   */
  async open(): Promise<number> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.failed(err);
      throw new Error(
        `cannot reach the team database ${this.target.name} (COS_DATABASE_URL): ${this.describe(err)}`,
      );
    }
    try {
      const applied = await migrate(client);
      this.succeeded();
      return applied;
    } catch (err) {
      throw new Error(
        `the team database ${this.target.name} refused the hub's schema: ${this.describe(err)}`,
      );
    } finally {
      client.release();
    }
  }

  /** One statement on a pooled connection; a lost database becomes ToolError('unavailable'). */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<R[]> {
    return this.withClient(async (client) => (await client.query<R>(text, values)).rows);
  }

  /**
   * `fn` in one transaction (BEGIN … COMMIT); acknowledged only once COMMIT returned. `durable: false`
   * commits without waiting for the WAL to reach the disk (`synchronous_commit = off`, set in the same
   * round trip as BEGIN): for what was acknowledged before it was sent.
   */
  async transaction<T>(fn: (q: Queryable) => Promise<T>, options: { durable?: boolean } = {}): Promise<T> {
    return this.withClient(async (client, broken) => {
      await client.query(options.durable === false ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
      try {
        const out = await fn(client);
        await client.query('COMMIT');
        return out;
      } catch (err) {
        if (!broken() && !isConnectionError(err)) await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    });
  }

  /**
   * `work` on a connection of the hub's, checked in afterwards: thrown away instead when it broke, so the
   * next write never gets it. A checked-out client has no listener of the pool's: the server ending the
   * connection between two statements (a restart) would be an uncaught 'error' event; the next statement
   * fails instead, and `broken()` says so.
   */
  private async withClient<T>(
    work: (client: pg.PoolClient, broken: () => boolean) => Promise<T>,
  ): Promise<T> {
    const client = await this.checkout();
    let broken = false;
    const lost = (err: Error) => {
      broken = true;
      this.failed(err);
    };
    client.on('error', lost);
    try {
      const out = await work(client, () => broken);
      this.succeeded();
      return out;
    } catch (err) {
      broken ||= isConnectionError(err);
      throw this.toToolError(err);
    } finally {
      this.checkin(client, broken, lost);
    }
  }

  /**
   * A connection of the pool's, once one of the hub's `max` is free. Waiting for a free one is bounded by
   * QUEUE_TIMEOUT_MS (then `transient`: the hub is busy, the database is fine); connecting by
   * CONNECT_TIMEOUT_MS (then `unavailable`). A database found lost refuses every waiting write at once
   * rather than letting each find out in turn.
   */
  private async checkout(): Promise<pg.PoolClient> {
    if (this.free > 0) this.free--;
    else await this.enqueue();
    try {
      return await this.pool.connect();
    } catch (err) {
      this.grantNext();
      throw this.toToolError(err);
    }
  }

  private checkin(client: pg.PoolClient, broken: boolean, lost: (err: Error) => void): void {
    // A connection that failed mid-statement is thrown away, not handed to the next write.
    client.removeListener('error', lost);
    client.release(broken ? true : undefined);
    this.grantNext();
  }

  private enqueue(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
        refuse: (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(
          new ToolError(
            'transient',
            `all ${this.max} of this hub's connections to the team database ${this.target.name} stayed busy for ${QUEUE_TIMEOUT_MS / 1000} s; nothing was changed: retry`,
            { retryable: true },
          ),
        );
      }, QUEUE_TIMEOUT_MS);
      timer.unref?.();
      this.waiting.push(entry);
    });
  }

  /** Hands a released connection's place to the first waiting write, or frees it. */
  private grantNext(): void {
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.free++;
  }

  /** Refuses every waiting write: the database is gone, and each would only find out in turn. */
  private refuseWaiting(): void {
    if (this.waiting.length === 0) return;
    const err = new ToolError(
      'unavailable',
      `the team database ${this.target.name} is unreachable (${this.error ?? 'connection lost'}); nothing was changed: retry in a few seconds`,
      { retryable: true },
    );
    for (const w of this.waiting.splice(0)) w.refuse(err);
  }

  /** The envelope's error for a driver error: `unavailable` when the database is gone, else as it was. */
  toToolError(err: unknown): unknown {
    if (err instanceof ToolError) return err;
    if (isConnectionError(err)) {
      this.failed(err);
      return new ToolError(
        'unavailable',
        `the team database ${this.target.name} is unreachable (${this.describe(err)}); nothing was changed: retry in a few seconds`,
        { retryable: true, cause: err },
      );
    }
    if (isConflict(err))
      return new ToolError('transient', 'another hub changed the same team record at once; retry', {
        retryable: true,
        cause: err,
      });
    if (isStatementTimeout(err))
      return new ToolError(
        'transient',
        `the team database ${this.target.name} did not finish a statement in ${STATEMENT_TIMEOUT_MS / 1000} s (busy, or waiting on another hub's write); nothing was changed: retry`,
        { retryable: true, cause: err },
      );
    return err;
  }

  /** A driver error as one redacted line. */
  describe(err: unknown): string {
    const e = err as { code?: unknown; message?: unknown } | null;
    const message = typeof e?.message === 'string' && e.message ? e.message : String(err);
    const code = typeof e?.code === 'string' ? ` [${e.code}]` : '';
    return redactSecrets(message.split('\n')[0] ?? message, this.target) + code;
  }

  failed(err: unknown): void {
    if (this.closed) return;
    const message = this.describe(err);
    if (this.state !== 'down') {
      this.logger?.warn({ scope: 'team', database: this.target.name }, `team database lost: ${message}`);
      this.state = 'down';
      this.since = Date.now();
    }
    this.error = message;
    this.refuseWaiting();
  }

  succeeded(): void {
    if (this.state === 'connected') return;
    if (this.state === 'down')
      this.logger?.info({ scope: 'team', database: this.target.name }, 'team database reachable again');
    this.state = 'connected';
    this.error = null;
    this.since = Date.now();
  }

  get connected(): boolean {
    return this.state === 'connected';
  }

  connection(): TeamConnection {
    return {
      state: this.state,
      database: this.target.name,
      error: this.error,
      since: this.since,
      pool: {
        total: this.pool.totalCount,
        idle: this.pool.idleCount,
        waiting: this.waiting.length,
        max: this.max,
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.splice(0))
      w.refuse(
        new ToolError('unavailable', 'the hub is shutting down; retry on another hub', { retryable: true }),
      );
    await this.pool.end().catch(() => {});
  }
}

export interface TeamMigration {
  version: number;
  name: string;
  sql: string;
}

export function listTeamMigrations(dir = MIGRATIONS_DIR): TeamMigration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 3)),
      name: f.slice(4, -4),
      sql: readFileSync(`${dir}${f}`, 'utf8'),
    }));
}

/**
 * Applies the migrations this database lacks, each in its own transaction, holding a session advisory
 * lock meanwhile: a second hub starting at the same moment waits, then finds them applied.
 */
export async function migrate(client: pg.PoolClient, migrations = listTeamMigrations()): Promise<number> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS cos_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM cos_schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    let count = 0;
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO cos_schema_migrations (version, name) VALUES ($1, $2)', [
          m.version,
          m.name,
        ]);
        await client.query('COMMIT');
        count++;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    }
    return count;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}
