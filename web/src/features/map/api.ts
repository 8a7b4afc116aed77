import { api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Ok<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer B } } } };
}
  ? B
  : never;
export type Overview = Ok<'/api/graph/overview'>['data'];
export type Communities = Ok<'/api/graph/communities'>['data'];
export type ApiRoute = NonNullable<Overview['api_surface']>['routes'][number];

export function mapOverview(signal?: AbortSignal) {
  return call(api.GET('/api/graph/overview', { signal }));
}

/** The largest groups (a page of them is what the drawing shows). */
export function mapCommunities(limit: number, signal?: AbortSignal) {
  return call(api.GET('/api/graph/communities', { params: { query: { level: 'file', limit } }, signal }));
}
