// Module settings are shared by every page: any page can meet `module_disabled` and offer to enable the
// module, so these calls live in lib rather than in the settings feature.
import { api, call, type ModuleId } from './api.ts';

export function listModules(signal?: AbortSignal) {
  return call(api.GET('/api/settings/modules', signal ? { signal } : {}));
}

export function setModule(id: ModuleId, enabled: boolean) {
  return call(api.PATCH('/api/settings/modules/{id}', { params: { path: { id } }, body: { enabled } }));
}

type Listener = () => void;
const listeners = new Set<Listener>();

/** Tell every mounted page that module settings changed (so a gate re-checks, a page reloads). */
export function announceModulesChanged(): void {
  for (const listener of listeners) listener();
}

export function onModulesChanged(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
