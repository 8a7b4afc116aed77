// The Flow page's calls: the daily (cos_task_daily) and the retro (cos_task_retro).
import { api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type Daily = Json<paths['/api/board/daily']['get']['responses'][200]>['data'];
export type Retro = Json<paths['/api/board/retro']['get']['responses'][200]>['data'];
export type RetroQuery = NonNullable<paths['/api/board/retro']['get']['parameters']['query']>;

export function loadDaily(hours: number, signal: AbortSignal) {
  return call(api.GET('/api/board/daily', { params: { query: { hours } }, signal }));
}

export function loadRetro(query: RetroQuery, signal: AbortSignal) {
  return call(api.GET('/api/board/retro', { params: { query }, signal }));
}
