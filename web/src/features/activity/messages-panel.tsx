// Messages on the Activity page: what agents wrote to the people watching (notifications: a count and a
// list, "Mark read" acks them as the page's person), a form that sends a message to one agent or to every
// live agent (it enters the agent's context with its next hook event), and every thread with its
// replies and who each message reached. Live: the hub's message-created, -delivered and -acked events.
import { type FormEvent, useMemo, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import type { ApiError } from '../../lib/api.ts';
import { throttle, useHubEvents } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';
import { agentLabel, time } from './agents-panels.tsx';
import { type Agent, presenceAgents } from './api.ts';
import {
  HUMAN,
  type InboxMessage,
  markRead,
  notifications,
  type SentMessage,
  sendMessage,
  threads,
} from './messages-api.ts';

const ALL = 'all';

function useLive(reload: () => void, types: Parameters<typeof useHubEvents>[0], ms = 300): void {
  const throttled = useMemo(() => throttle(reload, ms), [reload, ms]);
  useHubEvents(types, throttled);
}

/** How the page names a sender or recipient: the people, or an agent as the agents list shows it. */
function who(id: string, agents: readonly Agent[]): string {
  if (id === HUMAN) return 'you (the people here)';
  if (id === ALL) return 'every live agent';
  const a = agents.find((x) => x.id === id || x.agent_session === id || x.mcp_sessions.includes(id));
  return a ? agentLabel(a) : id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

const at = (iso: string) => time(Date.parse(iso));

interface Reply {
  to: string;
  thread_id: string;
  subject: string | null;
}

function Compose({
  agents,
  reply,
  onCancelReply,
  onSent,
}: {
  agents: readonly Agent[];
  reply: Reply | null;
  onCancelReply: () => void;
  onSent: () => void;
}) {
  const live = agents.filter((a) => a.lifecycle !== 'ended');
  const [to, setTo] = useState('');
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [urgent, setUrgent] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const target = reply?.to ?? (to || live[0]?.id || ALL);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSent(null);
    const outcome = await sendMessage({
      to: target,
      body,
      urgent,
      ...(subject.trim() ? { subject: subject.trim() } : {}),
      ...(reply ? { thread_id: reply.thread_id } : {}),
    });
    setBusy(false);
    if (!outcome.ok) {
      setError(outcome.error);
      return;
    }
    const n = outcome.value.data.recipients.length;
    setSent(`Sent to ${n === 1 ? who(outcome.value.data.recipients[0]!.agent, agents) : `${n} agents`}`);
    setBody('');
    setSubject('');
    setUrgent(false);
    onCancelReply();
    onSent();
  };

  return (
    <form
      className="message-form"
      onSubmit={submit}
      data-testid="message-compose"
      aria-label="Send a message"
    >
      <div className="form-row">
        {reply ? (
          <p className="message-reply-to">
            Reply to <strong>{who(reply.to, agents)}</strong> in “{reply.subject ?? 'thread'}”{' '}
            <button type="button" className="link-button" onClick={onCancelReply}>
              cancel
            </button>
          </p>
        ) : (
          <div>
            <label htmlFor="message-to">To</label>
            <select id="message-to" value={target} onChange={(e) => setTo(e.currentTarget.value)}>
              {live.map((a) => (
                <option key={a.id} value={a.id}>
                  {agentLabel(a)}
                  {a.claimed_task ? ` — ${a.claimed_task.id}` : ''}
                </option>
              ))}
              <option value={ALL}>every live agent (all)</option>
            </select>
          </div>
        )}
        <div className="message-subject">
          <label htmlFor="message-subject">Subject</label>
          <input
            id="message-subject"
            value={subject}
            maxLength={200}
            onChange={(e) => setSubject(e.currentTarget.value)}
            placeholder="optional"
          />
        </div>
      </div>
      <label htmlFor="message-body">Message</label>
      <textarea
        id="message-body"
        rows={3}
        required
        value={body}
        onChange={(e) => setBody(e.currentTarget.value)}
        placeholder="It reaches the agent's context with its next prompt or tool call."
      />
      <div className="form-actions">
        <label>
          <input type="checkbox" checked={urgent} onChange={(e) => setUrgent(e.currentTarget.checked)} />{' '}
          Urgent: also before its next tool runs
        </label>
        <button type="submit" className="primary" disabled={busy || body.trim() === ''}>
          Send
        </button>
        {sent ? (
          <span className="muted" role="status">
            {sent}
          </span>
        ) : null}
      </div>
      {error ? <ErrorNotice error={error} compact /> : null}
    </form>
  );
}

function Notification({
  m,
  agents,
  onRead,
  onReply,
}: {
  m: InboxMessage;
  agents: readonly Agent[];
  onRead: (id: string) => void;
  onReply: (r: Reply) => void;
}) {
  const unread = m.acked_at === null;
  return (
    <li className={unread ? 'message unread' : 'message'} data-message={m.id}>
      <div className="message-head">
        {unread ? <span className="badge badge-info">new</span> : null}
        {m.urgent ? <span className="badge badge-warn">urgent</span> : null}
        <strong>{who(m.from, agents)}</strong>
        <span className="muted"> · {at(m.created_at)}</span>
        {m.subject ? <span> · {m.subject}</span> : null}
      </div>
      <p className="message-body">{m.body}</p>
      <div className="message-actions">
        {unread ? (
          <button type="button" onClick={() => onRead(m.id)}>
            Mark read
          </button>
        ) : (
          <span className="muted">read {at(m.acked_at!)}</span>
        )}
        {m.from !== HUMAN ? (
          <button
            type="button"
            className="link-button"
            onClick={() => onReply({ to: m.from, thread_id: m.thread_id, subject: m.subject })}
          >
            Reply
          </button>
        ) : null}
      </div>
    </li>
  );
}

/** Whom a message was addressed to: a task names its claimant too; "all" stays "every live agent". */
function addressee(m: SentMessage, agents: readonly Agent[]): string {
  const one = m.recipients.length === 1 ? m.recipients[0]!.agent : undefined;
  if (m.to.startsWith('task:')) return one ? `${m.to.slice(5)} (${who(one, agents)})` : m.to.slice(5);
  return m.to.toLowerCase() === ALL ? who(ALL, agents) : who(one ?? m.to, agents);
}

function reached(m: SentMessage, agents: readonly Agent[]): string {
  return m.recipients
    .map(
      (r) =>
        `${who(r.agent, agents)}: ${r.acked_at ? 'acked' : r.delivered_at ? 'in its context' : r.agent === HUMAN ? 'unread' : 'waiting for its next hook'}`,
    )
    .join('; ');
}

export function MessagesCard() {
  const inbox = useQuery('messages:human', (signal) => notifications(signal));
  const all = useQuery('messages:threads', (signal) => threads(signal));
  const agentsQuery = useQuery('agents', (signal) => presenceAgents(signal));
  const [reply, setReply] = useState<Reply | null>(null);
  const [readError, setReadError] = useState<ApiError | null>(null);
  const reload = useMemo(
    () => () => {
      inbox.reload();
      all.reload();
    },
    [inbox.reload, all.reload],
  );
  useLive(reload, ['message-created', 'message-acked', 'message-delivered']);
  useLive(agentsQuery.reload, ['presence-updated'], 1000);
  const agents = agentsQuery.state.value?.data.entries ?? [];
  const notes = inbox.state.value?.data.messages ?? [];
  const unread = inbox.state.value?.data.unread ?? 0;
  const list = all.state.value?.data.threads ?? [];

  const read = async (id: string) => {
    setReadError(null);
    const outcome = await markRead([id]);
    if (!outcome.ok) setReadError(outcome.error);
    reload();
  };

  return (
    <section className="card wide" aria-labelledby="messages-title" data-testid="messages">
      <div className="card-header">
        <h2 id="messages-title">Messages</h2>
        <span
          className={unread > 0 ? 'badge badge-info' : 'muted'}
          data-testid="messages-unread"
          aria-live="polite"
        >
          {unread === 0 ? 'nothing unread' : `${unread} unread for you`}
        </span>
      </div>
      <div className="messages-grid">
        <div>
          <h3>For you</h3>
          {inbox.state.status === 'error' ? (
            <ErrorNotice error={inbox.state.error} onRetry={inbox.reload} />
          ) : null}
          {readError ? <ErrorNotice error={readError} compact /> : null}
          {notes.length === 0 && inbox.state.value ? (
            <p className="muted">No agent has written to you.</p>
          ) : null}
          <ul className="message-list" data-testid="message-notifications">
            {notes.map((m) => (
              <Notification key={m.id} m={m} agents={agents} onRead={read} onReply={setReply} />
            ))}
          </ul>
        </div>
        <div>
          <h3>Send</h3>
          <Compose agents={agents} reply={reply} onCancelReply={() => setReply(null)} onSent={reload} />
        </div>
      </div>
      <h3>Threads</h3>
      {all.state.status === 'error' ? <ErrorNotice error={all.state.error} onRetry={all.reload} /> : null}
      {list.length === 0 && all.state.value ? <p className="muted">No messages yet.</p> : null}
      <ul className="thread-list" data-testid="message-threads">
        {list.map((t) => (
          <li key={t.thread_id} data-thread={t.thread_id}>
            <details open={list.length <= 5}>
              <summary>
                <strong>{t.subject ?? '(no subject)'}</strong>{' '}
                <span className="muted">
                  · {t.count} message{t.count === 1 ? '' : 's'} · {at(t.last_at)}
                </span>
              </summary>
              <ol className="message-list">
                {t.messages.map((m) => (
                  <li key={m.id} className="message" data-message={m.id}>
                    <div className="message-head">
                      {m.urgent ? <span className="badge badge-warn">urgent</span> : null}
                      <strong>{who(m.from, agents)}</strong> → {addressee(m, agents)}
                      <span className="muted"> · {at(m.created_at)}</span>
                    </div>
                    <p className="message-body">{m.body}</p>
                    <div className="message-actions">
                      <span className="muted">{reached(m, agents)}</span>
                      <button
                        type="button"
                        className="link-button"
                        onClick={() =>
                          setReply({
                            to: m.from === HUMAN ? (m.recipients[0]?.agent ?? ALL) : m.from,
                            thread_id: t.thread_id,
                            subject: t.subject,
                          })
                        }
                      >
                        Reply
                      </button>
                    </div>
                  </li>
                ))}
              </ol>
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
