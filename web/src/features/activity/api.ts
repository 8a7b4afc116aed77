import { api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type TimelineEntry = Json<
  paths['/api/observability/timeline']['get']['responses'][200]
>['data']['entries'][number];
export type Agent = Json<paths['/api/presence/agents']['get']['responses'][200]>['data']['entries'][number];
export type Lifecycle = Agent['lifecycle'];
export type MetricsWindow = NonNullable<
  NonNullable<paths['/api/observability/metrics']['get']['parameters']['query']>['window']
>;
export const WINDOWS = ['5m', '15m', '1h', '6h', '24h', '7d'] as const satisfies readonly MetricsWindow[];

export function timeline(signal?: AbortSignal, cursor?: string) {
  return call(
    api.GET('/api/observability/timeline', {
      params: { query: { limit: 50, ...(cursor ? { cursor } : {}) } },
      signal,
    }),
  );
}

export function presenceAgents(signal?: AbortSignal) {
  return call(api.GET('/api/presence/agents', { params: { query: { include_ended: true } }, signal }));
}

/** The header's presence line, on every page and refreshed live. */
export function presenceNow(signal?: AbortSignal) {
  return call(api.GET('/api/presence/now', { signal }));
}

export function metrics(window: MetricsWindow, signal?: AbortSignal) {
  return call(api.GET('/api/observability/metrics', { params: { query: { window } }, signal }));
}

export function recentErrors(signal?: AbortSignal) {
  return call(
    api.GET('/api/observability/logs', { params: { query: { level: 'warn', limit: 20 } }, signal }),
  );
}

export type HookEvent = Json<
  paths['/api/agents/activity']['get']['responses'][200]
>['data']['entries'][number];
type ActivityQuery = NonNullable<paths['/api/agents/activity']['get']['parameters']['query']>;

export function agentActivity(query: ActivityQuery, signal?: AbortSignal) {
  return call(api.GET('/api/agents/activity', { params: { query }, signal }));
}

/** The board's in-progress column: who is working on what. */
export function inProgress(signal?: AbortSignal) {
  return call(
    api.GET('/api/board/list', { params: { query: { status: 'in_progress', limit: 100 } }, signal }),
  );
}

/** The hub's counts of problems in the last hour (the hub summary's, so every page agrees). */
export function problemCounts(signal?: AbortSignal) {
  return call(api.GET('/api/hub/summary', { signal }));
}
