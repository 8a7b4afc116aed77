// The SQLite message store (a hub on its own; port.ts): statements prepared once, every method
// synchronous. It speaks rows; resolving recipients, redaction, limits and wording live in the service.
import type { Db } from '../db/open.ts';
import type {
  AckResult,
  MessageRow,
  MessageStore,
  MessageWithRecipients,
  Position,
  RecipientRow,
  ThreadRow,
} from './port.ts';

type Stored = Omit<MessageRow, 'urgent'> & { urgent: number };
type StoredInbox = Stored & { delivered_at: number | null; acked_at: number | null };

const toMessage = <T extends Stored>(r: T): Omit<T, 'urgent'> & { urgent: boolean } => ({
  ...r,
  urgent: r.urgent === 1,
});

const COLUMNS =
  'm.id, m.thread_id, m.sender, m.machine, m.addressed, m.subject, m.body, m.urgent, m.created_at';
const FAR = { at: Number.MAX_SAFE_INTEGER, id: '\uffff' };

export function createSqliteMessageStore(db: Db): MessageStore {
  const insertMessage = db.prepare<[Stored]>(
    `INSERT INTO messages (id, thread_id, sender, machine, addressed, subject, body, urgent, created_at)
     VALUES (@id, @thread_id, @sender, @machine, @addressed, @subject, @body, @urgent, @created_at)`,
  );
  const insertRecipient = db.prepare<[string, string]>(
    'INSERT OR IGNORE INTO message_recipients (recipient, message_id) VALUES (?, ?)',
  );
  const thread = db.prepare<[string], number>('SELECT 1 FROM messages WHERE thread_id = ? LIMIT 1').pluck();
  const inbox = db.prepare<
    { recipient: string; unread: number; at: number; id: string; limit: number },
    StoredInbox
  >(
    `SELECT ${COLUMNS}, r.delivered_at, r.acked_at
     FROM message_recipients r JOIN messages m ON m.id = r.message_id
     WHERE r.recipient = @recipient AND (@unread = 0 OR r.acked_at IS NULL)
       AND (m.created_at < @at OR (m.created_at = @at AND m.id < @id))
     ORDER BY m.created_at DESC, m.id DESC LIMIT @limit`,
  );
  const unread = db
    .prepare<[string], number>(
      'SELECT count(*) FROM message_recipients WHERE recipient = ? AND acked_at IS NULL',
    )
    .pluck();
  const recipientRow = db.prepare<[string, string], { acked_at: number | null }>(
    'SELECT acked_at FROM message_recipients WHERE recipient = ? AND message_id = ?',
  );
  const ackOne = db.prepare<[number, string, string]>(
    'UPDATE message_recipients SET acked_at = ? WHERE recipient = ? AND message_id = ? AND acked_at IS NULL',
  );
  const deliverOne = db.prepare<[number, string, string]>(
    'UPDATE message_recipients SET delivered_at = ? WHERE recipient = ? AND message_id = ? AND delivered_at IS NULL',
  );
  const pending = db.prepare<[number], StoredInbox & { recipient: string }>(
    `SELECT ${COLUMNS}, r.recipient, r.delivered_at, r.acked_at
     FROM message_recipients r JOIN messages m ON m.id = r.message_id
     WHERE r.delivered_at IS NULL AND r.acked_at IS NULL
     ORDER BY m.created_at, m.id LIMIT ?`,
  );
  const threads = db.prepare<{ at: number; id: string; limit: number }, ThreadRow>(
    `SELECT thread_id, last_at, count FROM (
       SELECT thread_id, max(created_at) AS last_at, count(*) AS count FROM messages GROUP BY thread_id)
     WHERE last_at < @at OR (last_at = @at AND thread_id < @id)
     ORDER BY last_at DESC, thread_id DESC LIMIT @limit`,
  );
  const threadMessages = db.prepare<[string, number], Stored>(
    `SELECT ${COLUMNS} FROM (
       SELECT m.*, row_number() OVER (PARTITION BY m.thread_id ORDER BY m.created_at DESC, m.id DESC) AS n
       FROM messages m WHERE m.thread_id IN (SELECT value FROM json_each(?))) m
     WHERE m.n <= ? ORDER BY m.thread_id, m.created_at, m.id`,
  );
  const recipientsOf = db.prepare<[string], RecipientRow & { message_id: string }>(
    `SELECT message_id, recipient, delivered_at, acked_at FROM message_recipients
     WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY recipient`,
  );
  const prune = db.prepare<[number]>('DELETE FROM messages WHERE created_at < ?');

  const add = db.transaction((m: MessageRow, recipients: readonly string[]) => {
    insertMessage.run({ ...m, urgent: m.urgent ? 1 : 0 });
    for (const r of recipients) insertRecipient.run(r, m.id);
  });
  const ack = db.transaction((recipient: string, ids: readonly string[], at: number): AckResult => {
    const acked: AckResult['acked'] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const row = recipientRow.get(recipient, id);
      if (!row) missing.push(id);
      else acked.push({ id, acked_at: row.acked_at ?? at });
    }
    if (missing.length > 0) return { acked: [], missing };
    for (const id of ids) ackOne.run(at, recipient, id);
    return { acked, missing };
  });
  const deliver = db.transaction((recipient: string, ids: readonly string[], at: number) => {
    for (const id of ids) deliverOne.run(at, recipient, id);
  });

  return {
    add: (m, recipients) => add(m, recipients),
    threadExists: (id) => thread.get(id) !== undefined,
    inbox: (recipient, { unreadOnly, after, limit }) => {
      const from = after ?? FAR;
      return inbox
        .all({ recipient, unread: unreadOnly ? 1 : 0, at: from.at, id: from.id, limit })
        .map(toMessage);
    },
    unread: (recipient) => unread.get(recipient) ?? 0,
    // Reads, then writes: the write lock is taken first (BEGIN IMMEDIATE), or a commit of another of
    // hub.db's connections between the two would refuse the write at once (SQLITE_BUSY, no waiting).
    ack: (recipient, ids, at) => ack.immediate(recipient, [...new Set(ids)], at),
    markDelivered: (recipient, ids, at) => deliver(recipient, ids, at),
    pending: (limit) => pending.all(limit).map(toMessage),
    threads: ({ after, limit }) => {
      const from: Position = after ?? FAR;
      return threads.all({ at: from.at, id: from.id, limit });
    },
    threadMessages: (threadIds, perThread) => {
      if (threadIds.length === 0) return [];
      const rows = threadMessages.all(JSON.stringify(threadIds), perThread).map(toMessage);
      const byMessage = new Map<string, RecipientRow[]>();
      for (const r of recipientsOf.all(JSON.stringify(rows.map((m) => m.id)))) {
        const list = byMessage.get(r.message_id) ?? [];
        byMessage.set(r.message_id, list);
        list.push({ recipient: r.recipient, delivered_at: r.delivered_at, acked_at: r.acked_at });
      }
      return rows.map((m): MessageWithRecipients => ({ ...m, recipients: byMessage.get(m.id) ?? [] }));
    },
    prune: (cutoff) => void prune.run(cutoff),
  };
}
