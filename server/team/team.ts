// A hub's membership of its team: the team key and machine, the shared database, the feed that carries
// entries between hubs, and the outbox for what must reach the team but must never make its sender wait
// (hook events, tool-call records). Domain services reach it as ctx.services.team (absent without
// COS_DATABASE_URL, when everything stays in hub.db exactly as before).
import type { Logger } from 'pino';
import { HUB_VERSION } from '../version.ts';
import type { Queryable, TeamConnection, TeamDatabase } from './database.ts';
import { BATCH_PREFIX, type NewEntry, TeamFeed } from './feed.ts';

export interface TeamStatus extends TeamConnection {
  team: string;
  machine: string;
  /** Whether the listener that brings other hubs' news is connected. */
  listening: boolean;
  /** Entries queued for the team that the database has not taken yet (hook events, tool calls). */
  outbox: number;
  /** Outbox entries dropped because the database stayed away past the outbox's bound. */
  dropped: number;
  /** The team's hubs seen in the last minute (as of the last heartbeat, every 15 s). */
  hubs: { machine: string; seen_at: string }[];
}

/** Writes one kind's queued bodies into its own tables, inside the outbox's transaction. */
export type OutboxWriter = (q: Queryable, bodies: unknown[]) => Promise<void>;

interface Queued {
  kind: string;
  body: unknown;
  /** Also a feed entry for the other hubs (false: only its table). */
  feed: boolean;
}

/** The bodies of the entries `keep` takes, by kind, in their order. */
function bodiesByKind(items: readonly Queued[], keep: (item: Queued) => boolean): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const item of items) {
    if (!keep(item)) continue;
    const list = out.get(item.kind) ?? [];
    out.set(item.kind, list);
    list.push(item.body);
  }
  return out;
}

/** Queued entries kept at most while the database is away; past it the oldest go. */
export const OUTBOX_LIMIT = 50_000;
const OUTBOX_BATCH = 1000;
const OUTBOX_DELAY_MS = 20;

export class Team {
  readonly feed: TeamFeed;
  private queue: Queued[] = [];
  private readonly writers = new Map<string, OutboxWriter>();
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private retryMs = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  dropped = 0;

  constructor(
    readonly db: TeamDatabase,
    readonly key: string,
    readonly machine: string,
    private readonly repo: string,
    private readonly logger: Logger,
  ) {
    this.feed = new TeamFeed(db, key, machine, logger);
  }

  /** This hub process's id in the team. */
  get hub(): string {
    return this.feed.hub;
  }

  async start(): Promise<void> {
    await this.feed.start();
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat(), 15_000);
    this.heartbeat.unref();
  }

  /** The team's hubs as the last heartbeat read them (cos_health shows them without a query). */
  seen: { machine: string; seen_at: string }[] = [];

  private async beat(): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO team_hubs (hub, team, machine, repository, version) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (hub) DO UPDATE SET seen_at = now()`,
        [this.hub, this.key, this.machine, this.repo, HUB_VERSION],
      );
      this.seen = (await this.hubs()).map(({ machine, seen_at }) => ({ machine, seen_at }));
    } catch {
      // cos_health says the database is away; the next beat tries again.
    }
  }

  /** The hubs of this team seen in the last minute (this one included). */
  async hubs(): Promise<{ hub: string; machine: string; repository: string; seen_at: string }[]> {
    const rows = await this.db.query<{ hub: string; machine: string; repository: string; seen_at: Date }>(
      "SELECT hub, machine, repository, seen_at FROM team_hubs WHERE team = $1 AND seen_at > now() - interval '1 minute' ORDER BY machine, started_at",
      [this.key],
    );
    return rows.map((r) => ({ ...r, seen_at: r.seen_at.toISOString() }));
  }

  /** How the outbox writes `kind` into its tables (once per kind, at start). */
  writer(kind: string, write: OutboxWriter): void {
    this.writers.set(kind, write);
  }

  /**
   * Queues an entry for the team without waiting: written with others in one transaction within
   * ~20 ms, kept and retried while the database is away (up to OUTBOX_LIMIT, then the oldest go).
   */
  enqueue(kind: string, body: unknown, options: { feed?: boolean } = {}): void {
    if (this.closed) return;
    this.queue.push({ kind, body, feed: options.feed ?? true });
    if (this.queue.length > OUTBOX_LIMIT) {
      const over = this.queue.length - OUTBOX_LIMIT;
      this.queue.splice(0, over);
      this.dropped += over;
    }
    this.schedule(OUTBOX_DELAY_MS);
  }

  private schedule(ms: number): void {
    if (this.timer || this.flushing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.queue.length > 0 && !this.closed) this.schedule(this.retryMs || OUTBOX_DELAY_MS);
      });
    }, ms);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, OUTBOX_BATCH);
      try {
        // What the outbox carries was acknowledged before it was sent (a hook is answered at once), so
        // its commit need not wait for the WAL to reach the disk: a database crash could lose the last
        // moment of activity, never a claim or a memory (their transactions keep the default). Under
        // hundreds of events a second the flush wait, held with the feed's lock, was most of the delay.
        await this.db.transaction((q) => this.write(q, batch), { durable: false });
        this.queue.splice(0, batch.length);
        this.retryMs = 0;
      } catch (err) {
        this.retryMs = Math.min(Math.max(this.retryMs * 2, 250), 5000);
        this.logger.debug(
          { scope: 'team', err: this.db.describe(err) },
          'team outbox waits for the database',
        );
        return;
      }
    }
  }

  /** One batch into its kinds' tables, and one feed entry per kind for the other hubs. */
  private async write(q: Queryable, batch: readonly Queued[]): Promise<void> {
    const byKind = bodiesByKind(batch, (item) => this.writers.has(item.kind));
    for (const [kind, bodies] of byKind) await this.writers.get(kind)!(q, bodies);
    // One feed row per kind per batch (its handlers still get each entry): at a hook rate of
    // hundreds a second, a row each was most of what PostgreSQL did for the team.
    const fed = bodiesByKind(batch, (item) => item.feed);
    const entries: NewEntry[] = [...fed].map(([kind, bodies]) =>
      bodies.length === 1
        ? { kind, body: bodies[0] }
        : { kind: `${BATCH_PREFIX}${kind}`, body: { entries: bodies } },
    );
    await this.feed.append(q, entries);
  }

  /** Waits until everything queued so far is written (or the database refused it once). */
  async drain(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.flushing) await this.flushing;
    if (this.queue.length > 0) {
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
      });
      await this.flushing;
    }
  }

  status(): TeamStatus {
    return {
      ...this.db.connection(),
      team: this.key,
      machine: this.machine,
      listening: this.feed.listening,
      outbox: this.queue.length,
      dropped: this.dropped,
      hubs: this.seen,
    };
  }

  /** What cos_health lists while the team database is away. */
  problem(): string | undefined {
    const s = this.db.connection();
    if (s.state !== 'down' && (this.feed.listening || s.state === 'connecting')) return undefined;
    return `the team database ${s.database} is unreachable since ${new Date(s.since).toISOString()} (${s.error ?? 'listener disconnected'}): claims, moves and memory answer \`unavailable\` until it is back (the hub reconnects by itself); local reads, the code graph and hooks go on${this.queue.length > 0 ? `; ${this.queue.length} hook events and tool calls wait to be sent` : ''}`;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.drain().catch(() => {});
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.db.query('DELETE FROM team_hubs WHERE hub = $1', [this.hub]).catch(() => {});
    await this.feed.close();
  }
}

declare module '../hub-services.ts' {
  interface HubServices {
    /** The hub's team on PostgreSQL (COS_DATABASE_URL); absent when the hub runs alone. */
    team?: Team;
  }
}
