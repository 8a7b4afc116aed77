// The team feed: what one hub tells every other hub of its team. An entry is a row of team_log (team,
// hub, machine, kind, body), appended in the same transaction as the team write it reports, so a claim
// and the news of it commit together. At COMMIT, PostgreSQL's NOTIFY wakes every hub's listener (one
// connection of its own, LISTEN cos_team), which reads the rows after the last it saw: no polling loop,
// and a hub that was cut off catches up from its cursor when it reconnects.
//
// Appends to one team's log take an advisory transaction lock first, so sequence numbers commit in
// order and a reader that saw seq N never later finds a smaller one appear.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Queryable, TeamDatabase } from './database.ts';

export const TEAM_CHANNEL = 'cos_team';
/**
 * The kind of a row that carries many entries of one kind (`batch:<kind>`, body `{entries: [...]}`):
 * the outbox's hundreds of hook events a second are one row per batch, not one each.
 */
export const BATCH_PREFIX = 'batch:';

export interface TeamEntry<B = unknown> {
  seq: number;
  /** The hub process that appended it (one per process: two hubs of one machine differ). */
  hub: string;
  machine: string;
  kind: string;
  body: B;
  /** ms since the epoch. */
  at: number;
}

export type NewEntry = Pick<TeamEntry, 'kind' | 'body'>;

export type EntryHandler = (entry: TeamEntry) => void;

/** Rows read per query while catching up. */
const PAGE = 2000;
/** Entries older than this leave the log (each hub sweeps now and then). */
export const LOG_RETENTION_MS = 24 * 3600_000;

export class TeamFeed {
  /** This hub process in the team (entries it appended are not handed back to it). */
  readonly hub = randomUUID();
  private readonly handlers = new Map<string, Set<EntryHandler>>();
  private listener: pg.Client | undefined;
  private cursor = 0;
  private reading: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private retryMs = 250;
  private retryTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Entries delivered to handlers since start (cos_health, tests). */
  delivered = 0;

  constructor(
    private readonly db: TeamDatabase,
    readonly team: string,
    readonly machine: string,
    private readonly logger: Logger,
  ) {}

  /** Calls `handler` for every entry of `kind` another hub appends (`*` for every kind). */
  on(kind: string, handler: EntryHandler): () => void {
    const set = this.handlers.get(kind) ?? new Set<EntryHandler>();
    this.handlers.set(kind, set);
    set.add(handler);
    return () => set.delete(handler);
  }

  /**
   * Appends entries inside the caller's transaction (`q`); they reach the other hubs at its COMMIT. One
   * statement takes the team's lock, numbers and inserts the entries in their order and queues the
   * NOTIFY: the lock is held from there to the COMMIT, one round trip, not three (under hundreds of hook
   * events a second, two hubs' outboxes waited on each other's lock for most of their flush).
   */
  async append(q: Queryable, entries: readonly NewEntry[]): Promise<number[]> {
    if (entries.length === 0) return [];
    const values: unknown[] = [this.team, TEAM_CHANNEL, this.hub, this.machine];
    const rows: string[] = [];
    for (const e of entries) {
      const i = values.length;
      values.push(e.kind, JSON.stringify(e.body ?? null));
      rows.push(`(${rows.length}, $${i + 1}::text, $${i + 2}::json)`);
    }
    // The lock is a materialised CTE the insert reads from, so every sequence number is drawn after it is
    // held; `notified` is read too, or PostgreSQL would not run it.
    const { rows: out } = await q.query<{ seq: string }>(
      `WITH locked AS MATERIALIZED (SELECT pg_advisory_xact_lock(hashtextextended($1, 7))),
       added AS (
         INSERT INTO team_log (team, hub, machine, kind, body)
         SELECT $1, $3, $4, v.kind, v.body FROM locked, (VALUES ${rows.join(', ')}) AS v(ord, kind, body)
         ORDER BY v.ord
         RETURNING seq),
       notified AS (SELECT pg_notify($2, $1 || E'\\n' || max(seq)) FROM added)
       SELECT seq FROM added, notified ORDER BY seq`,
      values,
    );
    return out.map((r) => Number(r.seq));
  }

  /** Appends entries in a transaction of their own. */
  publish(entries: readonly NewEntry[]): Promise<number[]> {
    return this.db.transaction((q) => this.append(q, entries));
  }

  /**
   * Starts listening from the log's end (what happened before this hub started is the stores' to load,
   * not the feed's to replay). Resolves once the listener is connected or has failed once.
   */
  async start(): Promise<void> {
    try {
      const rows = await this.db.query<{ seq: string | null }>(
        'SELECT max(seq) AS seq FROM team_log WHERE team = $1',
        [this.team],
      );
      this.cursor = Number(rows[0]?.seq ?? 0);
    } catch {
      // The database went away between open() and here: the listener's reconnect loop catches up.
    }
    await this.connect();
    this.sweepTimer = setInterval(() => void this.sweep(), 10 * 60_000);
    this.sweepTimer.unref();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.db.clientConfig());
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('Connection ended')));
    client.on('notification', (msg) => {
      const [team, seq] = (msg.payload ?? '').split('\n');
      if (team === this.team && Number(seq) > this.cursor) this.read();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${TEAM_CHANNEL}`);
      if (this.closed) {
        await client.end().catch(() => {});
        return;
      }
      this.listener = client;
      this.retryMs = 250;
      this.db.succeeded();
      // Whatever was appended while this hub was not listening.
      this.read();
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      this.lost(client, err);
    }
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.closed) return;
    if (this.listener !== undefined && this.listener !== client) return;
    this.listener = undefined;
    this.db.failed(err);
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 5000);
  }

  /** Reads the entries after the cursor; a notification arriving meanwhile reads again after. */
  private read(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.drain()
      .catch((err: unknown) => {
        this.db.toToolError(err);
        this.logger.warn({ scope: 'team', err: this.db.describe(err) }, 'team feed could not read');
      })
      .finally(() => {
        this.reading = undefined;
        if (this.again && !this.closed) {
          this.again = false;
          this.read();
        }
      });
  }

  private async drain(): Promise<void> {
    for (;;) {
      const rows = await this.db.query<{
        seq: string;
        hub: string;
        machine: string;
        kind: string;
        body: unknown;
        at: Date;
      }>(
        // This hub's own entries only move the cursor: their bodies (batches of its hook events) are not
        // read back.
        `SELECT seq, hub, machine, kind, CASE WHEN hub = $4 THEN NULL ELSE body END AS body, at
         FROM team_log WHERE team = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [this.team, this.cursor, PAGE, this.hub],
      );
      for (const r of rows) {
        const entry: TeamEntry = {
          seq: Number(r.seq),
          hub: r.hub,
          machine: r.machine,
          kind: r.kind,
          body: r.body,
          at: r.at.getTime(),
        };
        this.cursor = entry.seq;
        if (entry.hub === this.hub) continue;
        this.deliver(entry);
      }
      if (rows.length < PAGE || this.closed) return;
    }
  }

  private deliver(entry: TeamEntry): void {
    // One row for a batch of the outbox's entries of one kind (team.ts): each is delivered as its own.
    if (entry.kind.startsWith(BATCH_PREFIX)) {
      const bodies = (entry.body as { entries?: unknown } | null)?.entries;
      const kind = entry.kind.slice(BATCH_PREFIX.length);
      if (Array.isArray(bodies)) for (const body of bodies) this.deliver({ ...entry, kind, body });
      return;
    }
    this.delivered++;
    for (const key of [entry.kind, '*']) {
      for (const handler of this.handlers.get(key) ?? []) {
        try {
          handler(entry);
        } catch (err) {
          this.logger.error({ scope: 'team', err, kind: entry.kind }, 'a team feed handler failed');
        }
      }
    }
  }

  /** Waits until every entry committed so far has been delivered (tests, and an orderly close). */
  async settle(): Promise<void> {
    this.read();
    while (this.reading) await this.reading;
  }

  get listening(): boolean {
    return this.listener !== undefined;
  }

  private async sweep(): Promise<void> {
    try {
      await this.db.query(
        "DELETE FROM team_log WHERE team = $1 AND at < now() - $2 * interval '1 millisecond'",
        [this.team, LOG_RETENTION_MS],
      );
    } catch {
      // Retention waits for the next sweep.
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const client = this.listener;
    this.listener = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
    await this.reading?.catch(() => {});
  }
}
