import { api, call } from '../../lib/api.ts';

export function getHealth(signal: AbortSignal) {
  return call(api.GET('/api/health', { signal }));
}

export function hubSummary(signal: AbortSignal) {
  return call(api.GET('/api/hub/summary', { signal }));
}

export function mcpProfiles(signal: AbortSignal) {
  return call(api.GET('/api/settings/mcp-profiles', { signal }));
}
