import { api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Ok<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer B } } } };
}
  ? B
  : never;
export type Overview = Ok<'/api/graph/overview'>['data'];
export type Communities = Ok<'/api/graph/communities'>['data'];
export type Surface = Ok<'/api/graph/api-surface'>['data'];
export type SurfaceEntry = Surface['entries'][number];
export type SurfaceKind = SurfaceEntry['kind'];

/** Entries the table holds (the REST face answers up to 500 a page; more come with the cursor). */
export const SURFACE_PAGE = 500;

/** The repository's API surface, of one kind or all (cos_graph_api_surface). */
export function apiSurface(kind: SurfaceKind | undefined, cursor?: string, signal?: AbortSignal) {
  return call(
    api.GET('/api/graph/api-surface', {
      params: { query: { limit: SURFACE_PAGE, ...(kind ? { kind } : {}), ...(cursor ? { cursor } : {}) } },
      signal,
    }),
  );
}

export function mapOverview(signal?: AbortSignal) {
  return call(api.GET('/api/graph/overview', { signal }));
}

/** The largest groups (a page of them is what the drawing shows). */
export function mapCommunities(limit: number, signal?: AbortSignal) {
  return call(api.GET('/api/graph/communities', { params: { query: { level: 'file', limit } }, signal }));
}
