// The message store port: what the service asks of whichever store holds the messages. store.ts is
// SQLite's (a hub on its own: every method answers at once), pg-store.ts the team's PostgreSQL (every
// read and write a promise, but markDelivered, which goes through the team outbox so that a hook answer
// never waits for the database). The service is written once against `Awaitable`.
import { randomBytes } from 'node:crypto';

export type Awaitable<T> = T | Promise<T>;

/** The recipient (and sender) that is a person on the hub's page rather than an agent. */
export const HUMAN = 'human';
/** `to` for every live agent but the sender. */
export const ALL = 'all';
/** A message body holds at most this many bytes (UTF-8). */
export const MAX_BODY_BYTES = 8192;
export const MAX_SUBJECT_CHARS = 200;

export interface MessageRow {
  id: string;
  thread_id: string;
  /** An agent session, or HUMAN. */
  sender: string;
  /** The machine whose hub took the message. */
  machine: string;
  /** `to` as the sender wrote it: a session, task:TASK-7, all or human. */
  addressed: string;
  subject: string | null;
  body: string;
  urgent: boolean;
  /** ms since the epoch. */
  created_at: number;
}

export interface RecipientRow {
  recipient: string;
  delivered_at: number | null;
  acked_at: number | null;
}

/** A message as one recipient holds it. */
export interface InboxRow extends MessageRow {
  delivered_at: number | null;
  acked_at: number | null;
}

export interface MessageWithRecipients extends MessageRow {
  recipients: RecipientRow[];
}

export interface ThreadRow {
  thread_id: string;
  last_at: number;
  count: number;
}

/** Where a page of a list starts: after the row with this time and id (newest first). */
export interface Position {
  at: number;
  id: string;
}

export interface AckResult {
  /** Each id asked for, with the time it is acked at (now, or when it was acked before). */
  acked: { id: string; acked_at: number }[];
  /** Ids that are not in the recipient's inbox (nothing was acked when there is one). */
  missing: string[];
}

export interface MessageStore {
  /** Writes the message and a recipient row each (in a team, with the feed entry telling the others). */
  add(message: MessageRow, recipients: readonly string[]): Awaitable<void>;
  threadExists(threadId: string): Awaitable<boolean>;
  /** A recipient's messages, newest first, after `after`; only unacked ones with unreadOnly. */
  inbox(
    recipient: string,
    options: { unreadOnly: boolean; after: Position | null; limit: number },
  ): Awaitable<InboxRow[]>;
  /** How many of a recipient's messages it has not acked. */
  unread(recipient: string): Awaitable<number>;
  /** Acks every id, or none when one of them is not the recipient's (`missing`). */
  ack(recipient: string, ids: readonly string[], at: number): Awaitable<AckResult>;
  /** Records that these messages entered the recipient's context; never waits for a database. */
  markDelivered(recipient: string, ids: readonly string[], at: number): void;
  /** Messages not yet delivered nor acked, per recipient, oldest first (what a hub starting delivers). */
  pending(limit: number): Awaitable<(InboxRow & { recipient: string })[]>;
  /** Threads by their latest message, newest first, after `after` (position: last_at, thread_id). */
  threads(options: { after: Position | null; limit: number }): Awaitable<ThreadRow[]>;
  /** The messages of these threads with their recipients, oldest first within a thread. */
  threadMessages(threadIds: readonly string[], perThread: number): Awaitable<MessageWithRecipients[]>;
  /** Deletes the messages created before `cutoff`. */
  prune(cutoff: number): Awaitable<void>;
}

/** A new message id: sortable by time at a glance, unique across the hubs of a team. */
export function newMessageId(now: number): string {
  return `m-${now.toString(36)}-${randomBytes(4).toString('hex')}`;
}

export const MESSAGE_ID = /^m-[a-z0-9]{1,12}-[a-f0-9]{8}$/;
