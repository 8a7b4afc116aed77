import { api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

export function getHealth(signal: AbortSignal) {
  return call(api.GET('/api/health', { signal }));
}

export function hubSummary(signal: AbortSignal) {
  return call(api.GET('/api/hub/summary', { signal }));
}

type ConnectQuery = NonNullable<paths['/api/settings/connect/{client}']['get']['parameters']['query']>;
export type ConnectClient = paths['/api/settings/connect/{client}']['get']['parameters']['path']['client'];
export type HookSettingsPatch = NonNullable<
  paths['/api/settings/hooks']['patch']['requestBody']
>['content']['application/json'];

export function connectPlan(client: ConnectClient, query: ConnectQuery, signal?: AbortSignal) {
  return call(api.GET('/api/settings/connect/{client}', { params: { path: { client }, query }, signal }));
}

export function hookSettings(signal?: AbortSignal) {
  return call(api.GET('/api/settings/hooks', { signal }));
}

export function setHookSettings(body: HookSettingsPatch) {
  return call(api.PATCH('/api/settings/hooks', { body }));
}

export function mcpProfiles(signal: AbortSignal) {
  return call(api.GET('/api/settings/mcp-profiles', { signal }));
}
