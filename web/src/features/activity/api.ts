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
