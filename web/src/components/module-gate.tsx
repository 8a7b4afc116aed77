// A page that belongs to a module checks it before anything else: a disabled module gets one clear
// notice with an Enable button instead of a page of failed requests.
import { type ReactNode, useEffect } from 'react';
import type { ModuleId } from '../lib/api.ts';
import { listModules, onModulesChanged } from '../lib/modules.ts';
import { useQuery } from '../lib/use-query.ts';
import { ErrorNotice, ModuleDisabledNotice } from './error-notice.tsx';

export function ModuleGate({ modules, children }: { modules: ModuleId[]; children: ReactNode }) {
  const query = useQuery('modules', (signal) => listModules(signal));
  useEffect(() => onModulesChanged(query.reload), [query.reload]);
  const { state } = query;
  if (state.status === 'error') return <ErrorNotice error={state.error} onRetry={query.reload} />;
  if (state.value === undefined) return <p className="muted">Loading…</p>;
  const disabled = state.value.data.modules.filter((m) => modules.includes(m.id) && !m.enabled);
  if (disabled.length > 0) {
    return (
      <>
        {disabled.map((m) => (
          <ModuleDisabledNotice key={m.id} module={m.id} />
        ))}
      </>
    );
  }
  return <>{children}</>;
}
