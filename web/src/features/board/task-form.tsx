// Create a task, or edit one. Edits carry the version the person read, so a change an agent made in the
// meantime is refused (and said so) rather than overwritten.
import { type FormEvent, useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import type { ApiError } from '../../lib/api.ts';
import {
  type CreateInput,
  createTask,
  type EditInput,
  editTask,
  KINDS,
  type Kind,
  PRIORITIES,
  type Priority,
  type Task,
} from './api.ts';

const splitList = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

interface Props {
  task?: Task;
  swimlanes: string[];
  onDone: (task: Task) => void;
  onCancel: () => void;
}

function isKind(value: string): value is Kind {
  return (KINDS as readonly string[]).includes(value);
}
function isPriority(value: string): value is Priority {
  return (PRIORITIES as readonly string[]).includes(value);
}

export function TaskForm({ task, swimlanes, onDone, onCancel }: Props) {
  const id = useId();
  const [title, setTitle] = useState(task?.title ?? '');
  const [kind, setKind] = useState<Kind>(task?.kind ?? 'feature');
  const [priority, setPriority] = useState<Priority>(task?.priority ?? 'P2');
  const [start, setStart] = useState<'icebox' | 'emergency'>('icebox');
  const [labels, setLabels] = useState(task?.labels.join(', ') ?? '');
  const [appetite, setAppetite] = useState(task?.appetite ?? '');
  const [swimlane, setSwimlane] = useState(task?.swimlane ?? '');
  const [outcome, setOutcome] = useState(task?.sections.outcome ?? '');
  const [acceptance, setAcceptance] = useState(task?.sections.acceptance ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    let outcomeResult: Awaited<ReturnType<typeof createTask>> | Awaited<ReturnType<typeof editTask>>;
    if (task) {
      const body: EditInput = {
        expected_version: task.version,
        title,
        kind,
        priority,
        labels: splitList(labels),
        appetite,
        swimlane,
        outcome,
        acceptance,
      };
      outcomeResult = await editTask(task.id, body);
    } else {
      const body: CreateInput = {
        title,
        kind,
        priority,
        status: start,
        labels: splitList(labels),
        ...(appetite ? { appetite } : {}),
        ...(swimlane ? { swimlane } : {}),
        ...(outcome ? { outcome } : {}),
        ...(acceptance ? { acceptance } : {}),
      };
      outcomeResult = await createTask(body);
    }
    setBusy(false);
    if (outcomeResult.ok) onDone(outcomeResult.value.data.task);
    else setError(outcomeResult.error);
  };

  return (
    <form className="task-form" onSubmit={submit} aria-label={task ? `Edit ${task.id}` : 'New task'}>
      <label htmlFor={`${id}-title`}>Title</label>
      <input
        id={`${id}-title`}
        type="text"
        required
        maxLength={200}
        value={title}
        onChange={(e) => setTitle(e.currentTarget.value)}
      />
      <div className="form-row">
        <div>
          <label htmlFor={`${id}-kind`}>Kind</label>
          <select
            id={`${id}-kind`}
            value={kind}
            onChange={(e) => {
              const v = e.currentTarget.value;
              if (isKind(v)) setKind(v);
            }}
          >
            {KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-priority`}>Priority</label>
          <select
            id={`${id}-priority`}
            value={priority}
            onChange={(e) => {
              const v = e.currentTarget.value;
              if (isPriority(v)) setPriority(v);
            }}
          >
            {PRIORITIES.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </div>
        {task ? null : (
          <div>
            <label htmlFor={`${id}-start`}>Starts in</label>
            <select
              id={`${id}-start`}
              value={start}
              onChange={(e) => setStart(e.currentTarget.value === 'emergency' ? 'emergency' : 'icebox')}
            >
              <option value="icebox">icebox</option>
              <option value="emergency">emergency</option>
            </select>
          </div>
        )}
        <div>
          <label htmlFor={`${id}-appetite`}>Appetite</label>
          <input
            id={`${id}-appetite`}
            type="text"
            placeholder="2h, 1d…"
            size={6}
            value={appetite}
            onChange={(e) => setAppetite(e.currentTarget.value)}
          />
        </div>
      </div>
      <label htmlFor={`${id}-labels`}>Labels (comma-separated)</label>
      <input
        id={`${id}-labels`}
        type="text"
        value={labels}
        onChange={(e) => setLabels(e.currentTarget.value)}
      />
      <label htmlFor={`${id}-swimlane`}>Swimlane</label>
      <input
        id={`${id}-swimlane`}
        type="text"
        list={`${id}-swimlanes`}
        value={swimlane}
        onChange={(e) => setSwimlane(e.currentTarget.value)}
      />
      <datalist id={`${id}-swimlanes`}>
        {swimlanes.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      <label htmlFor={`${id}-outcome`}>Outcome</label>
      <textarea
        id={`${id}-outcome`}
        rows={3}
        value={outcome}
        onChange={(e) => setOutcome(e.currentTarget.value)}
      />
      <label htmlFor={`${id}-acceptance`}>Acceptance (Given/When/Then)</label>
      <textarea
        id={`${id}-acceptance`}
        rows={3}
        value={acceptance}
        onChange={(e) => setAcceptance(e.currentTarget.value)}
      />
      {error ? <ErrorNotice error={error} module="tasks" compact /> : null}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : task ? 'Save' : 'Create task'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
