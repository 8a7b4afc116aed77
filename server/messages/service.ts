// Messages between agents and people, delivered into the agent's context. A message goes from an agent
// session or a person ("human") to an agent session, to the claimant of a task ("task:TASK-7", resolved
// when it is sent), to every live agent but the sender ("all": one recipient row each, fixed at send
// time, so an agent arriving later does not get old news), or to the people on the hub's page
// ("human"). Its recipient's next hook event that can carry context answers with it (intoAnswer, from
// the agents' ingest); it stays in the recipient's inbox until acked.
//
// The store is hub.db's alone, or the team's PostgreSQL (pg-store.ts), chosen once here. Whichever it is,
// what waits for delivery is also held in memory (pending.ts), so a hook answer reads no database; in a
// team the other hubs' sends, deliveries and acks reach that view through the feed. An agent reports to
// one hub, and only that hub answers its hooks, so a message enters one context once. The stream says
// message-created, message-delivered and message-acked (in a team, every hub's).
import type { Logger } from 'pino';
import { parseTaskId } from '../board/model.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { type HookAnswer, withContext } from '../hooks/answer.ts';
import type { NormalizedEvent } from '../hooks/normalize.ts';
import { createRedactor } from '../hooks/redact.ts';
import type { HubServices } from '../hub-services.ts';
import type { ModuleState } from '../modules.ts';
import type { TeamEntry } from '../team/feed.ts';
import type { Team } from '../team/team.ts';
import { contextFor, senderLabel } from './context.ts';
import { PENDING_LIMIT, PendingMessages } from './pending.ts';
import {
  type CreatedBody,
  createPgMessageStore,
  type MarkBody,
  MESSAGE_ACKED,
  MESSAGE_CREATED,
  MESSAGE_DELIVERED,
} from './pg-store.ts';
import {
  ALL,
  HUMAN,
  type InboxRow,
  MAX_BODY_BYTES,
  type MessageRow,
  type MessageStore,
  type MessageWithRecipients,
  newMessageId,
  type Position,
} from './port.ts';
import { createSqliteMessageStore } from './store.ts';

declare module '../hub-services.ts' {
  interface HubServices {
    messages: MessagesService;
  }
}

/** Messages one sender may send per RATE_WINDOW_MS; past it `transient` (retryable) until the window moves. */
export const RATE_LIMIT = 30;
export const RATE_WINDOW_MS = 60_000;
const SWEEP_MS = 5 * 60_000;

export interface MessagesServiceDeps {
  config: Config;
  db: Db;
  events: EventBus;
  logger: Logger;
  modules: ModuleState;
  /** With a team, the messages are the team's (PostgreSQL) instead of this hub.db's. */
  team?: Team | undefined;
  /** The hub's services, read when needed: agents (who is live), the board (task claimants). */
  services: HubServices;
  now?: () => number;
}

export interface SendInput {
  /** The sender: an agent session, or "human" for a person. */
  from: string;
  /** An agent session, "task:TASK-7", "all" or "human". */
  to: string;
  subject?: string | null | undefined;
  body: string;
  /** The thread to reply in; omitted, the message starts a thread of its own. */
  thread_id?: string | undefined;
  urgent?: boolean | undefined;
}

export interface RecipientView {
  agent: string;
  delivered_at: string | null;
  acked_at: string | null;
}

export interface MessageView {
  id: string;
  thread_id: string;
  from: string;
  from_machine: string;
  to: string;
  subject: string | null;
  body: string;
  urgent: boolean;
  created_at: string;
}

export type SentMessage = MessageView & { recipients: RecipientView[] };
export type InboxMessage = MessageView & { delivered_at: string | null; acked_at: string | null };

export interface ThreadView {
  thread_id: string;
  subject: string | null;
  last_at: string;
  count: number;
  /** Its latest messages (50 at most), oldest first, each with its recipients. */
  messages: SentMessage[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function view(m: MessageRow): MessageView {
  return {
    id: m.id,
    thread_id: m.thread_id,
    from: m.sender,
    from_machine: m.machine,
    to: m.addressed,
    subject: m.subject,
    body: m.body,
    urgent: m.urgent,
    created_at: iso(m.created_at)!,
  };
}

const withRecipients = (m: MessageWithRecipients): SentMessage => ({
  ...view(m),
  recipients: m.recipients.map((r) => ({
    agent: r.recipient,
    delivered_at: iso(r.delivered_at),
    acked_at: iso(r.acked_at),
  })),
});

const inboxView = (m: InboxRow): InboxMessage => ({
  ...view(m),
  delivered_at: iso(m.delivered_at),
  acked_at: iso(m.acked_at),
});

/** A page position as a cursor (`<ms>:<id>`) and back. */
export const cursorOf = (p: Position) => `${p.at}:${p.id}`;
function positionOf(cursor: string | undefined, what: string): Position | null {
  if (cursor === undefined || cursor === '') return null;
  const m = /^(\d{1,15}):([A-Za-z0-9._:@+=-]{1,200})$/.exec(cursor);
  if (!m) throw new ToolError('validation', `cursor must be the next_cursor of a previous ${what} answer`);
  return { at: Number(m[1]), id: m[2]! };
}

const str = (v: unknown): v is string => typeof v === 'string';
const fin = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A message row from another hub's feed entry, checked (the feed carries JSON); undefined if malformed. */
function rowOf(v: unknown): MessageRow | undefined {
  const m = v as Partial<MessageRow> | null;
  if (!m || !str(m.id) || !str(m.thread_id) || !str(m.sender) || !str(m.body) || !fin(m.created_at))
    return undefined;
  return {
    id: m.id,
    thread_id: m.thread_id,
    sender: m.sender,
    machine: str(m.machine) ? m.machine : 'unknown',
    addressed: str(m.addressed) ? m.addressed : '',
    subject: str(m.subject) ? m.subject : null,
    body: m.body,
    urgent: m.urgent === true,
    created_at: m.created_at,
  };
}

function markOf(v: unknown): MarkBody | undefined {
  const b = v as Partial<MarkBody> | null;
  if (!b || !str(b.recipient) || !Array.isArray(b.ids) || !fin(b.at)) return undefined;
  return { recipient: b.recipient, ids: b.ids.filter(str), at: b.at };
}

export function createMessagesService(deps: MessagesServiceDeps) {
  const { config, events, logger, modules, team, services } = deps;
  const now = deps.now ?? Date.now;
  const machine = team?.machine ?? config.machine;
  const store: MessageStore = team ? createPgMessageStore(team) : createSqliteMessageStore(deps.db);
  const pending = new PendingMessages();
  const redact = createRedactor(config.token ? [config.token] : []);
  const sent = new Map<string, number[]>();
  let sweeper: NodeJS.Timeout | undefined;
  let loadTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const agents = () => (services as Partial<HubServices>).agents;

  /** Holds a message for each of its agent recipients until it enters their context. */
  function hold(m: MessageRow, recipients: readonly string[]): void {
    for (const r of recipients) if (r !== HUMAN) pending.add(r, m);
  }

  function created(m: MessageRow, recipients: readonly string[], from: string): void {
    events.publish('message-created', {
      id: m.id,
      thread_id: m.thread_id,
      from: m.sender,
      to: m.addressed,
      recipients,
      subject: m.subject,
      urgent: m.urgent,
      created_at: iso(m.created_at),
      machine: from,
    });
  }

  /** Tells the page that messages entered an agent's context (their recipients now read "delivered"). */
  function delivered(mark: MarkBody, from: string): void {
    events.publish('message-delivered', {
      agent: mark.recipient,
      ids: mark.ids,
      at: iso(mark.at),
      machine: from,
    });
  }

  // Without a team hub.db is the whole truth: what waits for delivery is read from it at once.
  if (!team)
    for (const r of store.pending(PENDING_LIMIT) as (InboxRow & { recipient: string })[])
      pending.add(r.recipient, r);

  // The other hubs' sends, acks and deliveries (their own entries never come back to them).
  const offs = team
    ? [
        team.feed.on(MESSAGE_CREATED, (entry: TeamEntry) => {
          const body = entry.body as Partial<CreatedBody> | null;
          const m = rowOf(body?.message);
          const recipients = Array.isArray(body?.recipients) ? body.recipients.filter(str) : [];
          if (!m) return;
          hold(m, recipients);
          created(m, recipients, entry.machine);
        }),
        team.feed.on(MESSAGE_ACKED, (entry: TeamEntry) => {
          const mark = markOf(entry.body);
          if (!mark) return;
          pending.settle(mark.recipient, mark.ids);
          events.publish('message-acked', {
            agent: mark.recipient,
            ids: mark.ids,
            at: iso(mark.at),
            machine: entry.machine,
          });
        }),
        team.feed.on(MESSAGE_DELIVERED, (entry: TeamEntry) => {
          const mark = markOf(entry.body);
          if (!mark) return;
          pending.settle(mark.recipient, mark.ids);
          delivered(mark, entry.machine);
        }),
      ]
    : [];

  /** What a team hub starting late must deliver; while the database is away, again a little later. */
  function loadPending(delayMs: number): Promise<void> {
    return Promise.resolve(store.pending(PENDING_LIMIT))
      .then((rows) => {
        for (const r of rows) pending.add(r.recipient, r);
      })
      .catch((err: unknown) => {
        if (closed) return;
        logger.warn(
          { scope: 'messages', err },
          "the team's undelivered messages could not be read yet; retrying",
        );
        loadTimer = setTimeout(() => void loadPending(Math.min(delayMs * 2, 5000)), delayMs);
        loadTimer.unref();
      });
  }

  /**
   * The agent behind an id as the hub lists it (a hook session, an MCP session, or the hook session an
   * MCP session named), so a message to any of an agent's ids reaches its hook session's context.
   */
  function agentBehind(id: string) {
    const list = agents()?.agents({ includeEnded: true }) ?? [];
    return (
      list.find((a) => a.id === id) ??
      list.find((a) => a.mcp_sessions.includes(id)) ??
      list.find((a) => a.agent_session === id)
    );
  }

  /** The id messages to and from this agent are kept under (itself when the hub knows no other). */
  function canonical(id: string): string {
    if (id === HUMAN) return HUMAN;
    return agentBehind(id)?.id ?? id;
  }

  function recipientsOf(to: string, sender: string): string[] {
    if (to === HUMAN) return [HUMAN];
    if (to === ALL) {
      const live = (agents()?.agents({ includeEnded: false }) ?? []).filter(
        (a) => a.id !== sender && a.agent_session !== sender && !a.mcp_sessions.includes(sender),
      );
      if (live.length === 0)
        throw new ToolError(
          'not_found',
          'no live agent besides the sender to send to: "all" means every agent at work now (cos_presence_query lists them); send to "human" to reach the people on the hub\'s page',
        );
      return [...new Set(live.map((a) => a.id))];
    }
    if (/^task:/i.test(to)) {
      const ref = to.slice(5).trim();
      const n = parseTaskId(ref);
      if (n === null)
        throw new ToolError('validation', `to "${to}" names no task: write task:TASK-7 (the task's id)`);
      const board = (services as Partial<HubServices>).board;
      if (!board || !modules.isEnabled('tasks'))
        throw new ToolError(
          'not_found',
          `the tasks module is off, so "${to}" names no claimant: turn it on (cos module enable tasks) or send to the agent's session`,
        );
      const task = board.inProgress().find((t) => parseTaskId(t.id) === n);
      if (!task) {
        const row = board.store.get(n);
        throw new ToolError(
          'not_found',
          row
            ? `${row.key} is ${row.status.replace('_', ' ')}, claimed by nobody: send to an agent's session, or to "all"`
            : `no task ${ref} on the board: cos_task_board lists the tasks, cos_presence_query the agents and what they claimed`,
        );
      }
      if (!task.agent_session)
        throw new ToolError(
          'not_found',
          `${task.id} is in progress without a claimant session: send to an agent's session, or to "all"`,
        );
      return [canonical(task.agent_session)];
    }
    const agent = agentBehind(to);
    if (agent) return [agent.id];
    if (agents()?.store.session(to)) return [to];
    throw new ToolError(
      'not_found',
      `no agent "${to}" is known to this hub: cos_presence_query lists the agents at work (pass one's id), or send to "task:TASK-7" (its claimant), "all" or "human"`,
    );
  }

  function takeRate(sender: string, at: number): void {
    const times = (sent.get(sender) ?? []).filter((t) => t > at - RATE_WINDOW_MS);
    if (times.length >= RATE_LIMIT) {
      const wait = Math.max(1, Math.ceil((times[0]! + RATE_WINDOW_MS - at) / 1000));
      sent.set(sender, times);
      throw new ToolError(
        'transient',
        `${sender === HUMAN ? "the people on the hub's page have" : `agent "${sender}" has`} sent ${RATE_LIMIT} messages in the last minute, the most one sender may: retry in ${wait} s (nothing was sent)`,
        { retryable: true },
      );
    }
    times.push(at);
    sent.set(sender, times);
  }

  function sweepRates(at: number): void {
    for (const [sender, times] of sent) if (times.every((t) => t <= at - RATE_WINDOW_MS)) sent.delete(sender);
  }

  const label = (sender: string) => {
    const agent = sender === HUMAN ? undefined : agents()?.registry.get(sender);
    return senderLabel(sender, agent ? { client: agent.client, machine: agent.machine } : undefined);
  };

  return {
    /**
     * Sends a message (what cos_message_send does, and what other code calls to message an agent: a
     * handoff's note). Redacts the subject and body, resolves `to` now, and rate-limits the sender.
     */
    async send(input: SendInput): Promise<SentMessage> {
      const body = input.body.trim();
      if (body === '')
        throw new ToolError('validation', 'body must not be blank: say what the recipient should know or do');
      const bytes = Buffer.byteLength(body);
      if (bytes > MAX_BODY_BYTES)
        throw new ToolError(
          'validation',
          `body is ${bytes} bytes; a message holds at most ${MAX_BODY_BYTES} (8 KB): put the long part in a file or a task's work log and send where it is`,
        );
      const subjectText = input.subject?.replace(/\s+/g, ' ').trim() ?? '';
      const to = input.to.trim();
      if (to === '')
        throw new ToolError('validation', 'to must name an agent session, task:TASK-7, "all" or "human"');
      const sender = input.from.trim();
      if (sender === '' || sender.toLowerCase() === ALL || /^task:/i.test(sender))
        throw new ToolError(
          'validation',
          'a message comes from one agent session (SessionStart names it) or from "human", never from "all" or a task',
        );
      const from = canonical(sender);
      const recipients = recipientsOf(
        to.toLowerCase() === ALL || to.toLowerCase() === HUMAN ? to.toLowerCase() : to,
        from,
      );
      const threadId = input.thread_id?.trim();
      if (threadId !== undefined && threadId !== '' && !(await store.threadExists(threadId)))
        throw new ToolError(
          'not_found',
          `no thread "${threadId}": thread_id is the thread_id of a message you received (cos_inbox); leave it out to start a thread`,
        );
      const at = now();
      takeRate(from, at);
      const id = newMessageId(at);
      const m: MessageRow = {
        id,
        thread_id: threadId || id,
        sender: from,
        machine,
        addressed: to,
        subject: subjectText === '' ? null : redact.text(subjectText),
        body: redact.text(body),
        urgent: input.urgent === true,
        created_at: at,
      };
      try {
        await store.add(m, recipients);
      } catch (err) {
        // Not sent: it does not count against the sender.
        sent.get(from)?.pop();
        throw err;
      }
      hold(m, recipients);
      created(m, recipients, machine);
      return {
        ...view(m),
        recipients: recipients.map((agent) => ({ agent, delivered_at: null, acked_at: null })),
      };
    },

    /** An agent's (or the people's, "human") messages, newest first; unread = not acked. */
    async inbox(
      agentSession: string,
      options: { unreadOnly?: boolean; limit?: number; cursor?: string } = {},
    ): Promise<{ agent: string; messages: InboxMessage[]; unread: number; next_cursor: string | null }> {
      const agent = canonical(agentSession);
      const limit = options.limit ?? 20;
      const after = positionOf(options.cursor, 'cos_inbox');
      const rows = await store.inbox(agent, {
        unreadOnly: options.unreadOnly === true,
        after,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        agent,
        messages: page.map(inboxView),
        unread: await store.unread(agent),
        next_cursor: rows.length > limit && last ? cursorOf({ at: last.created_at, id: last.id }) : null,
      };
    },

    /** Acks messages in the agent's inbox: all of them, or none when one is not its own (`not_found`). */
    async ack(
      agentSession: string,
      ids: readonly string[],
    ): Promise<{ agent: string; acked: { id: string; acked_at: string }[]; unread: number }> {
      const agent = canonical(agentSession);
      const at = now();
      const result = await store.ack(agent, ids, at);
      if (result.missing.length > 0)
        throw new ToolError(
          'not_found',
          `not in ${agent === HUMAN ? "the people's" : `agent "${agent}"'s`} inbox: ${result.missing.slice(0, 10).join(', ')}${result.missing.length > 10 ? ` and ${result.missing.length - 10} more` : ''} (an unknown id, or a message to another recipient: only its recipient acks it); nothing was acked: cos_inbox lists the ids to ack`,
        );
      const fresh = result.acked.filter((a) => a.acked_at === at).map((a) => a.id);
      pending.settle(
        agent,
        result.acked.map((a) => a.id),
      );
      if (fresh.length > 0) events.publish('message-acked', { agent, ids: fresh, at: iso(at), machine });
      return {
        agent,
        acked: result.acked.map((a) => ({ id: a.id, acked_at: iso(a.acked_at)! })),
        unread: await store.unread(agent),
      };
    },

    /** Threads by their latest message, newest first, each with its latest messages and their recipients. */
    async threads(options: { limit?: number; cursor?: string } = {}): Promise<{
      threads: ThreadView[];
      next_cursor: string | null;
    }> {
      const limit = options.limit ?? 20;
      const after = positionOf(options.cursor, 'threads');
      const rows = await store.threads({ after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const messages = await store.threadMessages(
        page.map((t) => t.thread_id),
        50,
      );
      const byThread = new Map<string, SentMessage[]>();
      for (const m of messages) {
        const list = byThread.get(m.thread_id) ?? [];
        byThread.set(m.thread_id, list);
        list.push(withRecipients(m));
      }
      const last = page.at(-1);
      return {
        threads: page.map((t) => {
          const list = byThread.get(t.thread_id) ?? [];
          return {
            thread_id: t.thread_id,
            subject: list.find((m) => m.subject !== null)?.subject ?? null,
            last_at: iso(t.last_at)!,
            count: t.count,
            messages: list,
          };
        }),
        next_cursor: rows.length > limit && last ? cursorOf({ at: last.last_at, id: last.thread_id }) : null,
      };
    },

    /** The id an agent's messages are kept under (hook session for an agent the hub knows both ways). */
    canonical,

    /** The cursor of the inbox page that starts after `m`. */
    cursorOf: (m: Pick<MessageView, 'id' | 'created_at'>) =>
      cursorOf({ at: Date.parse(m.created_at), id: m.id }),

    /**
     * `answer` with the agent's waiting messages added when this event can carry them into its context:
     * SessionStart, a prompt (UserPromptSubmit, BeforeAgent), a finished tool (PostToolUse, AfterTool),
     * and for urgent messages also a tool about to run (PreToolUse; Gemini CLI's BeforeTool only when it
     * is refused, its reason being the one text of it the model reads). The messages it carries are
     * delivered: they never come into a context again, and stay in the inbox until acked.
     */
    intoAnswer(ev: NormalizedEvent, answer: HookAnswer): HookAnswer {
      if (pending.size === 0 || !pending.has(ev.session)) return answer;
      let urgentOnly: boolean;
      if (ev.kind === 'session_start' || ev.kind === 'prompt' || ev.phase === 'post') urgentOnly = false;
      else if (ev.phase === 'pre') urgentOnly = true;
      else return answer;
      const context = contextFor(ev.session, pending.list(ev.session, urgentOnly), label);
      if (context === null) return answer;
      const out = withContext(ev, answer, context.text);
      if (out === null) return answer;
      const mark: MarkBody = { recipient: ev.session, ids: context.included.map((m) => m.id), at: now() };
      pending.settle(mark.recipient, mark.ids);
      try {
        store.markDelivered(mark.recipient, mark.ids, mark.at);
      } catch (err) {
        // In memory they are delivered; only a restart before the next write could bring them again.
        logger.warn({ scope: 'messages', err }, 'recording a delivery of messages failed');
      }
      delivered(mark, machine);
      return out;
    },

    /** How many messages wait in memory for their recipients' next hook (tests, diagnostics). */
    waiting: () => pending.size,

    async start(): Promise<void> {
      if (team) await loadPending(250);
      sweeper = setInterval(() => {
        const at = now();
        sweepRates(at);
        const cutoff = at - config.retention.maxAgeMs;
        pending.prune(cutoff);
        Promise.resolve()
          .then(() => store.prune(cutoff))
          .catch((err: unknown) => logger.warn({ scope: 'messages', err }, 'message retention failed'));
      }, SWEEP_MS);
      sweeper.unref();
    },

    close(): void {
      closed = true;
      clearInterval(sweeper);
      clearTimeout(loadTimer);
      for (const off of offs) off();
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
