// A team's reservations in PostgreSQL (migration 006-reservations.sql), behind the port of
// reservation-store.ts. Every change is one transaction that first takes the team's reservation lock
// (pg_advisory_xact_lock), then reads the team's rows, lets the service decide and writes what it
// decided, with the feed entry that tells the other hubs: two hubs granting overlapping exclusive holds
// at the same moment are serialised by the lock, so the second one reads the first one's row and is
// refused. A lost database throws `unavailable` (team/database.ts): nothing was granted.
import type { Queryable } from '../team/database.ts';
import type { Team } from '../team/team.ts';
import type { Decision, Reservation, ReservationChange, ReservationStore } from './reservation-store.ts';

/** The feed entries of reservation changes (team_log.kind). */
export const RESERVATION_FEED_KIND = 'reservations';

/** Seed of the advisory lock key (the feed's own lock uses 7 on the same team text). */
const LOCK_SEED = 29;

export interface ReservationFeedBody {
  changes: ReservationChange[];
}

type Big = string | number;
interface PgRow extends Omit<Reservation, 'created_at' | 'expires_at'> {
  created_at: Big;
  expires_at: Big;
}

const COLUMNS =
  'id, holder, holder_client, machine, paths, reason, task_id, exclusive, created_at, expires_at';

const fromRow = (r: PgRow): Reservation => ({
  ...r,
  created_at: Number(r.created_at),
  expires_at: Number(r.expires_at),
});

export function createPgReservationStore(team: Team): ReservationStore {
  const { key } = team;
  const SELECT = `SELECT ${COLUMNS} FROM team_reservations WHERE team = $1`;
  const read = async (q: Queryable) => (await q.query<PgRow>(SELECT, [key])).rows.map(fromRow);
  return {
    all: async () => (await team.db.query<PgRow>(SELECT, [key])).map(fromRow),
    change<T>(decide: (rows: Reservation[]) => Decision<T>) {
      return team.db.transaction(async (q) => {
        await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, $2))', [key, LOCK_SEED]);
        const decision = decide(await read(q));
        const ended = decision.changes.filter((c) => c.ended).map((c) => c.reservation.id);
        const kept = decision.changes.filter((c) => !c.ended).map((c) => c.reservation);
        if (ended.length > 0)
          await q.query('DELETE FROM team_reservations WHERE team = $1 AND id = ANY($2::text[])', [
            key,
            ended,
          ]);
        if (kept.length > 0)
          await q.query(
            `INSERT INTO team_reservations AS r (team, ${COLUMNS})
             SELECT $1, x.id, x.holder, x.holder_client, x.machine, x.paths, x.reason, x.task_id, x.exclusive,
                    x.created_at, x.expires_at
             FROM json_to_recordset($2::json) AS x(id text, holder text, holder_client text, machine text,
                  paths jsonb, reason text, task_id text, exclusive boolean, created_at bigint, expires_at bigint)
             ON CONFLICT (team, id) DO UPDATE SET holder = excluded.holder, holder_client = excluded.holder_client,
               paths = excluded.paths, reason = excluded.reason, task_id = excluded.task_id,
               exclusive = excluded.exclusive, expires_at = excluded.expires_at`,
            [key, JSON.stringify(kept)],
          );
        if (decision.changes.length > 0)
          await team.feed.append(q, [
            {
              kind: RESERVATION_FEED_KIND,
              body: { changes: decision.changes } satisfies ReservationFeedBody,
            },
          ]);
        return decision;
      });
    },
  };
}
