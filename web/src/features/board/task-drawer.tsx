// The task drawer: everything in the task file (outcome, read-first, acceptance, work log), its history,
// and the writes a person makes from here (edit, move, append to the work log).
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { Markdown } from '../../components/markdown.tsx';
import type { ApiError } from '../../lib/api.ts';
import { count } from '../../lib/plural.ts';
import { Link } from '../../lib/router.tsx';
import { useQuery } from '../../lib/use-query.ts';
import {
  appendWorkLog,
  type BoardConfig,
  moveTask,
  STATUS_LABEL,
  type Status,
  showTask,
  type Task,
  taskHistory,
} from './api.ts';
import { HandoffForm } from './handoff-form.tsx';
import { TaskCost } from './task-cost.tsx';
import { TaskForm } from './task-form.tsx';

function age(iso: string | null): string {
  if (!iso) return '';
  const ms = Date.now() - Date.parse(iso);
  if (!Number.isFinite(ms)) return '';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/** A commit event's detail (cos_task_history include_commits), read defensively: detail is untyped. */
function commitOf(
  detail: unknown,
): { sha: string; subject: string; author: string; files_total: number } | undefined {
  if (typeof detail !== 'object' || detail === null) return undefined;
  const d = detail as Record<string, unknown>;
  if (typeof d.sha !== 'string' || typeof d.subject !== 'string') return undefined;
  return {
    sha: d.sha,
    subject: d.subject,
    author: typeof d.author === 'string' ? d.author : '',
    files_total: typeof d.files_total === 'number' ? d.files_total : 0,
  };
}

function CommitEvent({ at, detail }: { at: string; detail: unknown }) {
  const c = commitOf(detail);
  if (!c) return null;
  return (
    <li className="history-commit">
      <time dateTime={at}>{new Date(at).toLocaleString()}</time> <strong>commit</strong>{' '}
      <Link to={`/review?commit=${c.sha}`} title="Open its diff">
        <code>{c.sha.slice(0, 10)}</code>
      </Link>{' '}
      {c.subject}{' '}
      <span className="muted">
        by {c.author}, {count(c.files_total, 'file')}
      </span>
    </li>
  );
}

interface Props {
  id: string;
  config: BoardConfig | undefined;
  /** Bumped when the board learns that this task changed, so the drawer reloads. */
  revision: number;
  onClose: () => void;
  onChanged: (task: Task, from?: Status) => void;
}

/** A handoff's history entry names who gave the task to whom. */
function handoffOf(detail: unknown): { from: string | null; to: string } | undefined {
  const h = (detail as { handoff?: { from?: unknown; to?: unknown } } | null)?.handoff;
  return h && typeof h.to === 'string'
    ? { from: typeof h.from === 'string' ? h.from : null, to: h.to }
    : undefined;
}

export function TaskDrawer({ id, config, revision, onClose, onChanged }: Props) {
  const task = useQuery(`task:${id}:${revision}`, (signal) => showTask(id, signal));
  const history = useQuery(`history:${id}:${revision}`, (signal) => taskHistory(id, signal));
  const [editing, setEditing] = useState(false);
  const [failure, setFailure] = useState<ApiError | undefined>();
  const [note, setNote] = useState('');
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    closeButton.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const current = task.state.value?.data;
  const transitions = config?.columns.find((c) => c.status === current?.status)?.transitions ?? [];

  const afterWrite = (next: Task, from?: Status) => {
    task.set((v) => ({ ...v, data: next }));
    history.reload();
    onChanged(next, from);
  };

  const move = async (to: Status) => {
    if (!current) return;
    setFailure(undefined);
    const outcome = await moveTask(current.id, to, current.version);
    if (outcome.ok) afterWrite(outcome.value.data.task, current.status);
    else setFailure(outcome.error);
  };

  const log = async (event: FormEvent) => {
    event.preventDefault();
    if (!current || !note.trim()) return;
    setFailure(undefined);
    const outcome = await appendWorkLog(current.id, note.trim(), current.version);
    if (outcome.ok) {
      setNote('');
      afterWrite(outcome.value.data.task);
    } else setFailure(outcome.error);
  };

  return (
    <aside className="drawer" aria-labelledby="drawer-title" data-testid="task-drawer">
      <header className="drawer-header">
        <h2 id="drawer-title">{current ? `${current.id}: ${current.title}` : id}</h2>
        <button type="button" ref={closeButton} onClick={onClose} aria-label="Close the task">
          ✕
        </button>
      </header>
      {task.state.status === 'error' ? (
        <ErrorNotice error={task.state.error} onRetry={task.reload} module="tasks" />
      ) : null}
      {failure ? <ErrorNotice error={failure} module="tasks" compact /> : null}
      {!current ? (
        task.state.status === 'loading' ? (
          <p className="muted">Loading…</p>
        ) : null
      ) : editing ? (
        <TaskForm
          task={current}
          swimlanes={config?.swimlanes ?? []}
          onCancel={() => setEditing(false)}
          onDone={(next) => {
            setEditing(false);
            afterWrite(next);
          }}
        />
      ) : (
        <div className="drawer-body">
          <p className="chips">
            <span className="badge badge-info">{STATUS_LABEL[current.status]}</span>
            <span className={`prio prio-${current.priority}`}>{current.priority}</span>
            <span className="kind">{current.kind}</span>
            {current.labels.map((l) => (
              <span key={l} className="label">
                #{l}
              </span>
            ))}
          </p>
          <div className="drawer-actions">
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
            <label>
              Move to{' '}
              <select
                value=""
                onChange={(e) => {
                  const to = transitions.find((s) => s === e.currentTarget.value);
                  if (to) void move(to);
                }}
              >
                <option value="">choose…</option>
                {transitions.map((s) => (
                  <option key={s} value={s}>
                    {STATUS_LABEL[s]}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <dl className="facts">
            {current.agent_session ? (
              <>
                <dt>Agent</dt>
                <dd>{current.agent_session}</dd>
              </>
            ) : null}
            {current.machine ? (
              <>
                <dt>Machine</dt>
                <dd>{current.machine}</dd>
              </>
            ) : null}
            <dt>Created</dt>
            <dd>
              {current.created ?? 'unknown'} {current.created ? `(${age(current.created)})` : ''}
            </dd>
            {current.started ? (
              <>
                <dt>Started</dt>
                <dd>
                  {current.started} ({age(current.started)})
                </dd>
              </>
            ) : null}
            {current.completed ? (
              <>
                <dt>Completed</dt>
                <dd>{current.completed}</dd>
              </>
            ) : null}
            {current.appetite ? (
              <>
                <dt>Appetite</dt>
                <dd>{current.appetite}</dd>
              </>
            ) : null}
            {current.depends_on.length > 0 ? (
              <>
                <dt>Depends on</dt>
                <dd>{current.depends_on.join(', ')}</dd>
              </>
            ) : null}
            {current.blocked_by.length > 0 ? (
              <>
                <dt>Blocked by</dt>
                <dd>{current.blocked_by.join(', ')}</dd>
              </>
            ) : null}
            <dt>File</dt>
            <dd>
              <code>{current.path}</code> (version {current.version})
            </dd>
          </dl>
          {(
            [
              ['Outcome', current.sections.outcome],
              ['Read first', current.sections.read_first],
              ['Acceptance', current.sections.acceptance],
              ['Work log', current.sections.work_log],
            ] as const
          ).map(([title, text]) => (
            <section key={title} className="drawer-section">
              <h3>{title}</h3>
              {text.trim() ? <Markdown text={text} /> : <p className="muted">Empty</p>}
            </section>
          ))}
          <form className="work-log-form" onSubmit={log}>
            <label htmlFor="work-log-note">Add to the work log</label>
            <textarea
              id="work-log-note"
              rows={2}
              value={note}
              onChange={(e) => setNote(e.currentTarget.value)}
            />
            <button type="submit" disabled={!note.trim()}>
              Append
            </button>
          </form>
          <TaskCost id={current.id} />
          {current.status === 'in_progress' ? (
            <HandoffForm task={current} onDone={(next) => afterWrite(next)} onFailure={setFailure} />
          ) : null}
          <section className="drawer-section">
            <h3>History</h3>
            {history.state.status === 'error' ? (
              <ErrorNotice error={history.state.error} onRetry={history.reload} compact />
            ) : null}
            <ol className="history">
              {(history.state.value?.data.events ?? []).map((e) =>
                e.type === 'commit' ? (
                  <CommitEvent key={`commit:${commitOf(e.detail)?.sha}`} at={e.at} detail={e.detail} />
                ) : (
                  <li key={e.seq}>
                    <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time> <strong>{e.type}</strong>
                    {e.from_status || e.to_status ? ` ${e.from_status ?? '∅'} → ${e.to_status ?? '∅'}` : ''}
                    {handoffOf(e.detail) ? ` handed off to ${handoffOf(e.detail)?.to}` : ''}
                    {e.agent_session && !handoffOf(e.detail) ? ` by ${e.agent_session}` : ''}{' '}
                    <span className="muted">({e.source})</span>
                    {e.reason ? <div className="muted">{e.reason}</div> : null}
                  </li>
                ),
              )}
            </ol>
            <p>
              <Link to={`/review?task=${encodeURIComponent(current.id)}`}>Review this task's change</Link>
            </p>
          </section>
        </div>
      )}
    </aside>
  );
}
