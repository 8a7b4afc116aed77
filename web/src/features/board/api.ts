// The board's calls and the types the page works with, all derived from the generated `paths`.
import { api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type BoardBody = Json<paths['/api/board/list']['get']['responses'][200]>;
export type Column = BoardBody['data']['columns'][number];
export type Card = Column['cards'][number];
export type Status = Card['status'];
export type Kind = Card['kind'];
export type Priority = Card['priority'];
export type BoardQuery = NonNullable<paths['/api/board/list']['get']['parameters']['query']>;
export type TaskBody = Json<paths['/api/board/tasks/{id}']['get']['responses'][200]>;
export type Task = TaskBody['data'];
export type HistoryEvent = Json<
  paths['/api/board/tasks/{id}/history']['get']['responses'][200]
>['data']['events'][number];
export type CreateInput = NonNullable<
  paths['/api/board/tasks']['post']['requestBody']
>['content']['application/json'];
export type EditInput = NonNullable<
  paths['/api/board/tasks/{id}']['patch']['requestBody']
>['content']['application/json'];
export type BoardConfig = Json<paths['/api/board/config']['get']['responses'][200]>['data'];

export const KINDS = [
  'feature',
  'bug',
  'chore',
  'spike',
  'docs',
  'refactor',
  'test',
  'security',
] as const satisfies readonly Kind[];
export const PRIORITIES = ['P0', 'P1', 'P2', 'P3'] as const satisfies readonly Priority[];

/** The REST face answers up to 500 cards per column per page; the page asks for the most it can. */
export const PAGE_SIZE = 500;

export function listBoard(query: BoardQuery, signal?: AbortSignal) {
  return call(api.GET('/api/board/list', { params: { query: { limit: PAGE_SIZE, ...query } }, signal }));
}

export function boardConfig(signal?: AbortSignal) {
  return call(api.GET('/api/board/config', { signal }));
}

export function showTask(id: string, signal?: AbortSignal) {
  return call(api.GET('/api/board/tasks/{id}', { params: { path: { id } }, signal }));
}

export function taskHistory(id: string, signal?: AbortSignal) {
  return call(
    api.GET('/api/board/tasks/{id}/history', {
      params: { path: { id }, query: { limit: 200, include_commits: true } },
      signal,
    }),
  );
}

export function moveTask(id: string, to: Status, expectedVersion: number) {
  return call(
    api.POST('/api/board/tasks/{id}/move', {
      params: { path: { id } },
      body: { to, expected_version: expectedVersion, reason: 'moved on the Hub board' },
    }),
  );
}

/** Hands a task in progress to another live agent, as a person (the hub records who gave it to whom). */
export function handoffTask(id: string, to: string, note: string) {
  return call(api.POST('/api/board/tasks/{id}/handoff', { params: { path: { id } }, body: { to, note } }));
}

export function createTask(body: CreateInput) {
  return call(api.POST('/api/board/tasks', { body }));
}

export function editTask(id: string, body: EditInput) {
  return call(api.PATCH('/api/board/tasks/{id}', { params: { path: { id } }, body }));
}

export function appendWorkLog(id: string, text: string, expectedVersion: number) {
  return call(
    api.POST('/api/board/tasks/{id}/work-log', {
      params: { path: { id } },
      body: { text, expected_version: expectedVersion },
    }),
  );
}

/** A card as the board shows it, from the full task a write answers with. */
export function cardOf(task: Task): Card {
  return {
    id: task.id,
    title: task.title,
    status: task.status,
    kind: task.kind,
    priority: task.priority,
    labels: task.labels,
    version: task.version,
    depends_on: task.depends_on,
    ...(task.appetite !== undefined ? { appetite: task.appetite } : {}),
    ...(task.swimlane !== undefined ? { swimlane: task.swimlane } : {}),
    ...(task.epic !== undefined ? { epic: task.epic } : {}),
    ...(task.agent_session !== undefined ? { agent_session: task.agent_session } : {}),
  };
}

export const STATUS_LABEL: Record<Status, string> = {
  emergency: 'Emergency',
  in_progress: 'In progress',
  testing: 'Testing',
  blocked: 'Blocked',
  icebox: 'Icebox',
  complete: 'Complete',
  archive: 'Archive',
};
