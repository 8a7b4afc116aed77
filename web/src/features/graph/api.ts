import { api, call } from '../../lib/api.ts';

/** The hub summary carries the graph index's size and freshness (null when the graph is not running). */
export function hubSummary(signal?: AbortSignal) {
  return call(api.GET('/api/hub/summary', { signal }));
}
