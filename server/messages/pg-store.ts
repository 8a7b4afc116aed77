// The PostgreSQL message store (port.ts): the team's messages, shared by every hub of the team
// (migration 007-messages.sql). A message and the feed entry announcing it commit in one transaction, as
// does an ack and its entry, so another hub hears of exactly what was committed. A delivery mark is
// queued in the team outbox instead (written within ~20 ms, kept while the database is away): it comes
// from a hook answer, which must never wait on the network.
import type { Queryable } from '../team/database.ts';
import type { Team } from '../team/team.ts';
import type {
  AckResult,
  InboxRow,
  MessageRow,
  MessageStore,
  MessageWithRecipients,
  Position,
  RecipientRow,
  ThreadRow,
} from './port.ts';

/** Feed (and outbox) kinds. */
export const MESSAGE_CREATED = 'messages.created';
export const MESSAGE_ACKED = 'messages.acked';
export const MESSAGE_DELIVERED = 'messages.delivered';

/** What the feed carries of a new message: the row and its recipients. */
export interface CreatedBody {
  message: MessageRow;
  recipients: string[];
}

/** What the feed carries of an ack or a delivery: who, which messages, when. */
export interface MarkBody {
  recipient: string;
  ids: string[];
  at: number;
}

/** bigint comes back from pg as text; ms times fit a double exactly. */
type Big = string | number;
type PgMessage = Omit<MessageRow, 'created_at'> & { created_at: Big };
type PgInbox = PgMessage & { delivered_at: Big | null; acked_at: Big | null };

const num = (v: Big | null): number | null => (v === null ? null : Number(v));
const toMessage = (r: PgMessage): MessageRow => ({
  id: r.id,
  thread_id: r.thread_id,
  sender: r.sender,
  machine: r.machine,
  addressed: r.addressed,
  subject: r.subject,
  body: r.body,
  urgent: r.urgent,
  created_at: Number(r.created_at),
});
const toInbox = (r: PgInbox): InboxRow => ({
  ...toMessage(r),
  delivered_at: num(r.delivered_at),
  acked_at: num(r.acked_at),
});

const COLUMNS =
  'm.id, m.thread_id, m.sender, m.machine, m.addressed, m.subject, m.body, m.urgent, m.created_at';
const FAR: Position = { at: Number.MAX_SAFE_INTEGER, id: '\uffff' };

export function createPgMessageStore(team: Team): MessageStore {
  const { db, feed, key } = team;

  // Delivery marks of this hub's hook answers, in batches.
  team.writer(MESSAGE_DELIVERED, async (q: Queryable, bodies: unknown[]) => {
    const rows = (bodies as MarkBody[]).flatMap((b) =>
      b.ids.map((id) => ({ recipient: b.recipient, id, at: b.at })),
    );
    await q.query(
      `UPDATE team_message_recipients r SET delivered_at = x.at
       FROM json_to_recordset($2::json) AS x(recipient text, id text, at bigint)
       WHERE r.team = $1 AND r.recipient = x.recipient AND r.message_id = x.id AND r.delivered_at IS NULL`,
      [key, JSON.stringify(rows)],
    );
  });

  return {
    add: (m, recipients) =>
      db.transaction(async (q) => {
        await q.query(
          `INSERT INTO team_messages (team, id, thread_id, sender, machine, addressed, subject, body, urgent, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [
            key,
            m.id,
            m.thread_id,
            m.sender,
            m.machine,
            m.addressed,
            m.subject,
            m.body,
            m.urgent,
            m.created_at,
          ],
        );
        await q.query(
          `INSERT INTO team_message_recipients (team, recipient, message_id)
           SELECT $1, r, $2 FROM unnest($3::text[]) AS r ON CONFLICT DO NOTHING`,
          [key, m.id, [...recipients]],
        );
        const body: CreatedBody = { message: m, recipients: [...recipients] };
        await feed.append(q, [{ kind: MESSAGE_CREATED, body }]);
      }),

    threadExists: async (threadId) =>
      (
        await db.query('SELECT 1 FROM team_messages WHERE team = $1 AND thread_id = $2 LIMIT 1', [
          key,
          threadId,
        ])
      ).length > 0,

    inbox: async (recipient, { unreadOnly, after, limit }) => {
      const from = after ?? FAR;
      const rows = await db.query<PgInbox>(
        `SELECT ${COLUMNS}, r.delivered_at, r.acked_at
         FROM team_message_recipients r JOIN team_messages m ON m.team = r.team AND m.id = r.message_id
         WHERE r.team = $1 AND r.recipient = $2 AND ($3::boolean = false OR r.acked_at IS NULL)
           AND (m.created_at, m.id) < ($4::bigint, $5::text COLLATE "C")
         ORDER BY m.created_at DESC, m.id COLLATE "C" DESC LIMIT $6`,
        [key, recipient, unreadOnly, from.at, from.id, limit],
      );
      return rows.map(toInbox);
    },

    unread: async (recipient) => {
      const rows = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM team_message_recipients WHERE team = $1 AND recipient = $2 AND acked_at IS NULL',
        [key, recipient],
      );
      return rows[0]?.n ?? 0;
    },

    ack: (recipient, ids, at) =>
      db.transaction(async (q): Promise<AckResult> => {
        const wanted = [...new Set(ids)];
        const { rows } = await q.query<{ message_id: string; acked_at: Big | null }>(
          `SELECT message_id, acked_at FROM team_message_recipients
           WHERE team = $1 AND recipient = $2 AND message_id = ANY($3::text[]) FOR UPDATE`,
          [key, recipient, wanted],
        );
        const found = new Map(rows.map((r) => [r.message_id, num(r.acked_at)]));
        const missing = wanted.filter((id) => !found.has(id));
        if (missing.length > 0) return { acked: [], missing };
        const fresh = wanted.filter((id) => found.get(id) === null);
        if (fresh.length > 0) {
          await q.query(
            `UPDATE team_message_recipients SET acked_at = $4
             WHERE team = $1 AND recipient = $2 AND message_id = ANY($3::text[]) AND acked_at IS NULL`,
            [key, recipient, fresh, at],
          );
          const body: MarkBody = { recipient, ids: fresh, at };
          await feed.append(q, [{ kind: MESSAGE_ACKED, body }]);
        }
        return { acked: wanted.map((id) => ({ id, acked_at: found.get(id) ?? at })), missing };
      }),

    markDelivered: (recipient, ids, at) => {
      const body: MarkBody = { recipient, ids: [...ids], at };
      team.enqueue(MESSAGE_DELIVERED, body);
    },

    pending: async (limit) => {
      const rows = await db.query<PgInbox & { recipient: string }>(
        `SELECT ${COLUMNS}, r.recipient, r.delivered_at, r.acked_at
         FROM team_message_recipients r JOIN team_messages m ON m.team = r.team AND m.id = r.message_id
         WHERE r.team = $1 AND r.delivered_at IS NULL AND r.acked_at IS NULL
         ORDER BY m.created_at, m.id COLLATE "C" LIMIT $2`,
        [key, limit],
      );
      return rows.map((r) => ({ ...toInbox(r), recipient: r.recipient }));
    },

    threads: async ({ after, limit }) => {
      const from = after ?? FAR;
      const rows = await db.query<{ thread_id: string; last_at: Big; count: number }>(
        `SELECT thread_id, last_at, count FROM (
           SELECT thread_id, max(created_at) AS last_at, count(*)::int AS count
           FROM team_messages WHERE team = $1 GROUP BY thread_id) t
         WHERE (last_at, thread_id) < ($2::bigint, $3::text COLLATE "C")
         ORDER BY last_at DESC, thread_id COLLATE "C" DESC LIMIT $4`,
        [key, from.at, from.id, limit],
      );
      return rows.map(
        (r): ThreadRow => ({ thread_id: r.thread_id, last_at: Number(r.last_at), count: r.count }),
      );
    },

    threadMessages: async (threadIds, perThread) => {
      if (threadIds.length === 0) return [];
      const rows = await db.query<PgMessage>(
        `SELECT ${COLUMNS} FROM (
           SELECT t.*, row_number() OVER (PARTITION BY t.thread_id ORDER BY t.created_at DESC, t.id COLLATE "C" DESC) AS n
           FROM team_messages t WHERE t.team = $1 AND t.thread_id = ANY($2::text[])) m
         WHERE m.n <= $3 ORDER BY m.thread_id, m.created_at, m.id COLLATE "C"`,
        [key, [...threadIds], perThread],
      );
      const messages = rows.map(toMessage);
      const recipients = await db.query<{
        message_id: string;
        recipient: string;
        delivered_at: Big | null;
        acked_at: Big | null;
      }>(
        `SELECT message_id, recipient, delivered_at, acked_at FROM team_message_recipients
         WHERE team = $1 AND message_id = ANY($2::text[]) ORDER BY recipient`,
        [key, messages.map((m) => m.id)],
      );
      const byMessage = new Map<string, RecipientRow[]>();
      for (const r of recipients) {
        const list = byMessage.get(r.message_id) ?? [];
        byMessage.set(r.message_id, list);
        list.push({ recipient: r.recipient, delivered_at: num(r.delivered_at), acked_at: num(r.acked_at) });
      }
      return messages.map((m): MessageWithRecipients => ({ ...m, recipients: byMessage.get(m.id) ?? [] }));
    },

    prune: async (cutoff) => {
      await db.query('DELETE FROM team_messages WHERE team = $1 AND created_at < $2', [key, cutoff]);
    },
  };
}
