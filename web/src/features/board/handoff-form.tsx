// Hand a task in progress to another live agent, as the person watching: pick the agent, say where the
// work stands. The hub moves the claim in one step and the note reaches the new holder.
import { type FormEvent, useState } from 'react';
import type { ApiError } from '../../lib/api.ts';
import { useQuery } from '../../lib/use-query.ts';
import { agentLabel } from '../activity/agents-panels.tsx';
import { presenceAgents } from '../activity/api.ts';
import { handoffTask, type Task } from './api.ts';

interface Props {
  task: Task;
  onDone: (task: Task) => void;
  onFailure: (error: ApiError) => void;
}

export function HandoffForm({ task, onDone, onFailure }: Props) {
  const agents = useQuery(`handoff-agents:${task.id}:${task.version}`, presenceAgents);
  const [to, setTo] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const live = (agents.state.value?.data.entries ?? []).filter(
    (a) => a.lifecycle !== 'ended' && (a.agent_session ?? a.id) !== task.agent_session,
  );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!to || !note.trim()) return;
    setBusy(true);
    const outcome = await handoffTask(task.id, to, note.trim());
    setBusy(false);
    if (outcome.ok) {
      setNote('');
      setTo('');
      onDone(outcome.value.data.task);
    } else onFailure(outcome.error);
  };

  return (
    <form className="handoff-form" onSubmit={submit} aria-label="Hand off">
      <h3>Hand off</h3>
      {live.length === 0 ? (
        <p className="muted">No other live agent to hand this task to.</p>
      ) : (
        <>
          <label>
            To{' '}
            <select value={to} onChange={(e) => setTo(e.currentTarget.value)} required>
              <option value="">choose an agent…</option>
              {live.map((a) => {
                const session = a.agent_session ?? a.id;
                return (
                  <option key={a.id} value={session}>
                    {agentLabel(a)}
                    {a.machine ? ` on ${a.machine}` : ''}
                    {a.claimed_task ? ` (holds ${a.claimed_task.id})` : ''}
                  </option>
                );
              })}
            </select>
          </label>
          <textarea
            value={note}
            onChange={(e) => setNote(e.currentTarget.value)}
            placeholder="Where the work stands and what is next (reaches the new holder)"
            rows={3}
            maxLength={4000}
            required
          />
          <button type="submit" disabled={busy || !to || !note.trim()}>
            Hand off
          </button>
        </>
      )}
    </form>
  );
}
