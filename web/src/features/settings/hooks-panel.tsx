// The project's hook settings: what an edit of a file another live agent holds gets (nothing, a warning,
// a refusal), whether prompt text is kept, and the silences after which an agent is gone and its claim free.
import { useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import type { ApiError } from '../../lib/api.ts';
import { useQuery } from '../../lib/use-query.ts';
import { type HookSettingsPatch, hookSettings, setHookSettings } from './api.ts';

export function HooksPanel() {
  const query = useQuery('hook-settings', (signal) => hookSettings(signal));
  const [failure, setFailure] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  const s = query.state.value?.data.settings;
  const save = async (patch: HookSettingsPatch) => {
    setBusy(true);
    setFailure(undefined);
    const outcome = await setHookSettings(patch);
    setBusy(false);
    if (outcome.ok) query.set(() => outcome.value);
    else setFailure(outcome.error);
  };
  const minutes = (
    key: 'agent_timeout_minutes' | 'claim_grace_minutes' | 'conflict_window_minutes',
    label: string,
  ) =>
    s ? (
      <label>
        {label}{' '}
        <input
          type="number"
          min={1}
          defaultValue={s[key]}
          disabled={busy}
          onBlur={(e) => {
            const n = Number(e.currentTarget.value);
            if (Number.isInteger(n) && n >= 1 && n !== s[key]) save({ [key]: n });
          }}
        />{' '}
        min
      </label>
    ) : null;
  return (
    <section className="card" aria-labelledby="hooks-title" data-testid="hook-settings">
      <h2 id="hooks-title">Agent hooks</h2>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {failure ? <ErrorNotice error={failure} compact /> : null}
      {query.state.value?.data.load_error ? (
        <p className="notice notice-warning">{query.state.value.data.load_error}</p>
      ) : null}
      {s ? (
        <div className="form-rows">
          <label>
            Edit conflicts{' '}
            <select
              value={s.conflicts}
              disabled={busy}
              onChange={(e) => save({ conflicts: e.currentTarget.value as 'off' | 'warn' | 'block' })}
            >
              <option value="off">off</option>
              <option value="warn">warn the agent</option>
              <option value="block">refuse the edit</option>
            </select>
          </label>
          <label>
            <input
              type="checkbox"
              checked={s.store_prompts}
              disabled={busy}
              onChange={(e) => save({ store_prompts: e.currentTarget.checked })}
            />{' '}
            Keep prompt text (redacted); otherwise only its length and SHA-256
          </label>
          <label>
            <input
              type="checkbox"
              checked={s.map}
              disabled={busy}
              onChange={(e) => save({ map: e.currentTarget.checked })}
            />{' '}
            Offer the repository map (about 1,000 tokens) to agents at session start
          </label>
          {minutes('agent_timeout_minutes', 'An agent silent for')}
          <span className="muted">counts as gone.</span>
          {minutes('claim_grace_minutes', 'Its claimed task can be reclaimed after')}
          {minutes('conflict_window_minutes', 'Another agent’s edit counts as a conflict for')}
        </div>
      ) : null}
    </section>
  );
}
