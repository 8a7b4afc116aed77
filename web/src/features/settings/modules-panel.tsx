import { useEffect, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import type { ApiError, ModuleId } from '../../lib/api.ts';
import { announceModulesChanged, listModules, onModulesChanged, setModule } from '../../lib/modules.ts';
import { useQuery } from '../../lib/use-query.ts';

export function ModulesPanel() {
  const query = useQuery('modules', (signal) => listModules(signal));
  useEffect(() => onModulesChanged(query.reload), [query.reload]);
  const [busy, setBusy] = useState<ModuleId | undefined>();
  const [failure, setFailure] = useState<ApiError | undefined>();
  const { state } = query;

  const toggle = async (id: ModuleId, enabled: boolean) => {
    setBusy(id);
    setFailure(undefined);
    const outcome = await setModule(id, enabled);
    setBusy(undefined);
    if (outcome.ok) announceModulesChanged();
    else setFailure(outcome.error);
  };

  return (
    <section className="card" aria-labelledby="modules-title">
      <div className="card-header">
        <h2 id="modules-title">Modules</h2>
      </div>
      <p className="muted">
        A module that is off leaves the agents' tool list, and its tools answer <code>module_disabled</code>.
      </p>
      {state.status === 'error' ? <ErrorNotice error={state.error} onRetry={query.reload} /> : null}
      {failure ? <ErrorNotice error={failure} compact /> : null}
      {state.value?.data.problem ? <p className="notice notice-warning">{state.value.data.problem}</p> : null}
      {state.value ? (
        <ul className="modules">
          {state.value.data.modules.map((m) => (
            <li key={m.id} data-module={m.id}>
              <label className="switch">
                <input
                  type="checkbox"
                  checked={m.enabled}
                  disabled={m.id === 'kernel' || busy !== undefined}
                  onChange={(e) => toggle(m.id, e.currentTarget.checked)}
                />
                <span className="module-name">{m.id}</span>
                <span className={m.enabled ? 'state state-on' : 'state state-off'}>
                  {m.id === 'kernel' ? 'always on' : m.enabled ? 'on' : 'off'}
                </span>
              </label>
              <span className="muted">{m.description}</span>
            </li>
          ))}
        </ul>
      ) : state.status === 'loading' ? (
        <p className="muted">Loading…</p>
      ) : null}
    </section>
  );
}
