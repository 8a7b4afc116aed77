// What agents cost (cos_cost_report): the one call every cost view makes, typed from the generated paths.
import { api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type CostReport = Json<paths['/api/costs']['get']['responses'][200]>['data'];
export type CostGroup = CostReport['groups'][number];
export type CostTotals = CostReport['total'];
export type CostQuery = NonNullable<paths['/api/costs']['get']['parameters']['query']>;

export function loadCosts(query: CostQuery, signal?: AbortSignal) {
  return call(api.GET('/api/costs', { params: { query: { limit: 1000, ...query } }, signal }));
}
