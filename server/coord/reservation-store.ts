// Where reservations are kept: the store port, and its SQLite implementation (hub.db, migration 014) for
// a hub on its own. reservation-pg-store.ts keeps a team's in PostgreSQL behind the same port. A store
// knows no rules: every change is one atomic step in which the service's `decide` reads every row (under
// the write lock: SQLite's IMMEDIATE transaction here, the team's advisory lock there) and says what to
// write, so two grants can never both see the other's paths free.
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';

export interface Reservation {
  id: string;
  /** The agent_session that holds it. */
  holder: string;
  /** The holder's client when the granting hub knew it (claude-code, codex, an MCP client's name). */
  holder_client: string | null;
  /** The machine whose hub granted it. */
  machine: string;
  /** Normalised repository-relative paths and globs (path-specs.ts). */
  paths: string[];
  reason: string;
  /** The board's key of the task it is tied to. */
  task_id: string | null;
  exclusive: boolean;
  /** ms since the epoch. */
  created_at: number;
  expires_at: number;
}

export type ChangeKind = 'granted' | 'extended' | 'released' | 'expired' | 'handed_over';

/** One reservation's change: what it is now (`ended`: it is gone, as it was last). */
export interface ReservationChange {
  change: ChangeKind;
  reservation: Reservation;
  ended: boolean;
  /** Paths a release took off a reservation that goes on holding the rest. */
  released_paths?: string[];
  /** Why it ended or changed, in a few words (`its session ended`, `released by a person`). */
  reason?: string;
  /** Who made the change: the agent_session, `person` (the page), or `hub` (expiry, an end). */
  by: string;
}

/** What `decide` returns: the changes to write, and the answer the service gives. */
export interface Decision<T> {
  changes: ReservationChange[];
  result: T;
}

export interface ReservationStore {
  /** Every stored reservation (expired ones not swept yet included). */
  all(): Reservation[] | Promise<Reservation[]>;
  /** One atomic step: `decide` sees every row and says what changes; the changes are written with it. */
  change<T>(decide: (rows: Reservation[]) => Decision<T>): Promise<Decision<T>>;
}

interface Row {
  id: string;
  holder: string;
  holder_client: string | null;
  machine: string;
  paths: string;
  reason: string;
  task_id: string | null;
  exclusive: number;
  created_at: number;
  expires_at: number;
}

const fromRow = (r: Row): Reservation => ({
  ...r,
  paths: JSON.parse(r.paths) as string[],
  exclusive: r.exclusive === 1,
});

export function createSqliteReservationStore(db: Db): ReservationStore {
  const select = db.prepare<[], Row>(
    'SELECT id, holder, holder_client, machine, paths, reason, task_id, exclusive, created_at, expires_at FROM reservations',
  );
  const upsert = db.prepare(
    `INSERT INTO reservations (id, holder, holder_client, machine, paths, reason, task_id, exclusive, created_at, expires_at)
     VALUES (@id, @holder, @holder_client, @machine, @paths, @reason, @task_id, @exclusive, @created_at, @expires_at)
     ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, holder_client = excluded.holder_client,
       paths = excluded.paths, reason = excluded.reason, task_id = excluded.task_id,
       exclusive = excluded.exclusive, expires_at = excluded.expires_at`,
  );
  const remove = db.prepare<[string]>('DELETE FROM reservations WHERE id = ?');
  const all = () => select.all().map(fromRow);
  return {
    all,
    change(decide) {
      const step = db.transaction(() => {
        const decision = decide(all());
        for (const c of decision.changes) {
          if (c.ended) remove.run(c.reservation.id);
          else
            upsert.run({
              ...c.reservation,
              paths: JSON.stringify(c.reservation.paths),
              exclusive: c.reservation.exclusive ? 1 : 0,
            });
        }
        return decision;
      });
      try {
        return Promise.resolve(step.immediate());
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED')
          throw new ToolError('transient', 'hub.db is busy with another writer; retry in a moment', {
            retryable: true,
            cause: err,
          });
        throw err;
      }
    },
  };
}
