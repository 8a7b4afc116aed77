// The Review page's calls: a change (working tree, branch, range or commit) from cos_graph_detect_changes
// with its hunks, or a task's whole change from cos_task_changes; both answer the same report.
import { api, call, type Outcome } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type ChangesData = Json<paths['/api/graph/changes']['get']['responses'][200]>['data'];
export type TaskChangesData = Json<paths['/api/board/tasks/{id}/changes']['get']['responses'][200]>['data'];
export type ChangeFile = ChangesData['changes']['files'][number];
export type Hunk = NonNullable<ChangeFile['hunks']>[number];
export type ChangedSymbol = ChangesData['changes']['symbols'][number];

/** What the page reviews, read from its URL. */
export type Source =
  | { kind: 'working_tree' }
  | { kind: 'range'; base: string; head?: string }
  | { kind: 'commit'; sha: string }
  | { kind: 'task'; id: string };

export function sourceFrom(params: URLSearchParams): Source {
  const task = params.get('task');
  if (task) return { kind: 'task', id: task };
  const commit = params.get('commit');
  if (commit) return { kind: 'commit', sha: commit };
  const base = params.get('base');
  const head = params.get('head');
  if (base) return head ? { kind: 'range', base, head } : { kind: 'range', base };
  return { kind: 'working_tree' };
}

export type Report = ChangesData | TaskChangesData;

export async function loadChanges(source: Source, signal: AbortSignal): Promise<Outcome<{ data: Report }>> {
  if (source.kind === 'task')
    return call(api.GET('/api/board/tasks/{id}/changes', { params: { path: { id: source.id } }, signal }));
  const query =
    source.kind === 'commit'
      ? { base: `${source.sha}^`, head: source.sha }
      : source.kind === 'range'
        ? { base: source.base, ...(source.head ? { head: source.head } : {}) }
        : {};
  return call(api.GET('/api/graph/changes', { params: { query: { ...query, hunks: true } }, signal }));
}

/** The changed symbols and their first-hop dependents, for the graph canvas. */
export function changeGraph(data: Report) {
  const nodes = new Map<string, { id: string; label: string; kind: string }>();
  const edges: { source: string; target: string; type: string }[] = [];
  for (const s of data.changes.symbols) nodes.set(s.uid, { id: s.uid, label: s.label, kind: s.kind });
  for (const c of data.affected.consumers) {
    if (c.tier === 'context') continue;
    nodes.set(c.uid, { id: c.uid, label: c.label, kind: c.kind });
    edges.push({ source: c.uid, target: c.via_uid, type: c.via });
  }
  return { nodes: [...nodes.values()], edges };
}
