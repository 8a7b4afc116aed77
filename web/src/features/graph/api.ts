import { api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;
export type ExportQuery = Query<'/api/graph/export'>;
export type EdgeType = NonNullable<Query<'/api/graph/context'>['edge_types']>[number];

/** Dependency edge types a person can filter the export by (containment is the tree itself). */
export const EDGE_TYPES = [
  'imports',
  'calls',
  'inherits_from',
  'implements',
  'constructs',
  'has_param_type',
  'returns_type',
  'requires',
  'tests',
  'links_to',
  'cites_heading',
] as const satisfies readonly EdgeType[];

export const BUDGETS = [200, 800, 2000] as const;

/** The hub summary carries the graph index's size and freshness (null when the graph is not running). */
export function hubSummary(signal?: AbortSignal) {
  return call(api.GET('/api/hub/summary', { signal }));
}

export function graphSearch(query: string, signal?: AbortSignal) {
  return call(api.GET('/api/graph/search', { params: { query: { query, limit: 20 } }, signal }));
}

export function graphExport(query: ExportQuery, signal?: AbortSignal) {
  return call(api.GET('/api/graph/export', { params: { query: { format: 'json', ...query } }, signal }));
}

export function graphContext(node: string, signal?: AbortSignal) {
  return call(api.GET('/api/graph/context', { params: { query: { node, per_type: 25 } }, signal }));
}

export function graphReferences(node: string, signal?: AbortSignal) {
  return call(api.GET('/api/graph/references', { params: { query: { node, limit: 100 } }, signal }));
}

export function graphImpact(node: string, signal?: AbortSignal) {
  return call(api.GET('/api/graph/impact', { params: { query: { node, limit: 100 } }, signal }));
}

export function graphRenamePlan(node: string, newName: string, signal?: AbortSignal) {
  return call(api.GET('/api/graph/rename-plan', { params: { query: { node, new_name: newName } }, signal }));
}

export function graphDoctor(fix: boolean) {
  return call(api.POST('/api/graph/doctor', { body: { fix } }));
}

export function graphReindex() {
  return call(api.POST('/api/graph/reindex', { body: {} }));
}
