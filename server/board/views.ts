// What the board answers about a task: the card (a column's entry, kept small for agents' budgets), the
// full view (cos_task_show and every write's answer) and a write's answer, built from an index row or a
// parsed file.
import type { Kind, Priority, Status, TaskFields, TaskSections } from './model.ts';
import type { TaskRow } from './store.ts';
import type { TaskDocument } from './task-file.ts';

/** The most items one page of any board read answers. */
export const MAX_PAGE = 500;

export interface TaskCard {
  id: string;
  title: string;
  status: Status;
  kind: Kind;
  priority: Priority;
  appetite?: string;
  swimlane?: string;
  epic?: string;
  labels: string[];
  agent_session?: string;
  depends_on?: string[];
  version: number;
  /** In a team: the machine whose record the board shows (who holds the task, or moved it last). */
  machine?: string;
}

export interface TaskView extends Omit<TaskCard, 'depends_on'> {
  created: string | null;
  started: string | null;
  completed: string | null;
  depends_on: string[];
  blocked_by: string[];
  references: string[];
  sections: TaskSections;
  /** Repo-relative path of the task file. */
  path: string;
  unknown_keys: string[];
  unknown_sections: string[];
}

/** The answer of every write: the task as it now is, and what the write changed. */
export interface TaskChange {
  task: TaskView;
  old_status: Status | null;
  new_status: Status;
  changed: string[];
  wip_bypassed: boolean;
}

const parseList = (json: string): string[] => JSON.parse(json) as string[];

export function rowToCard(row: TaskRow): TaskCard {
  const card: TaskCard = {
    id: row.key,
    title: row.title,
    status: row.status,
    kind: row.kind,
    priority: row.priority,
    labels: parseList(row.labels),
    version: row.version,
  };
  // Nulls are left out: a card is read by agents under a byte budget.
  if (row.appetite !== null) card.appetite = row.appetite;
  if (row.swimlane !== null) card.swimlane = row.swimlane;
  if (row.epic !== null) card.epic = row.epic;
  if (row.agent_session !== null) card.agent_session = row.agent_session;
  const deps = parseList(row.depends_on);
  if (deps.length > 0) card.depends_on = deps;
  if (row.machine !== null) card.machine = row.machine;
  return card;
}

function cardFromFields(f: TaskFields): Omit<TaskCard, 'depends_on'> {
  const card: Omit<TaskCard, 'depends_on'> = {
    id: f.key,
    title: f.title,
    status: f.status,
    kind: f.kind,
    priority: f.priority,
    labels: f.labels,
    version: f.version,
  };
  if (f.appetite !== null) card.appetite = f.appetite;
  if (f.swimlane !== null) card.swimlane = f.swimlane;
  if (f.epic !== null) card.epic = f.epic;
  if (f.agent_session !== null) card.agent_session = f.agent_session;
  return card;
}

/** `path` is the task file's repo-relative path; `machine` the team record's (absent without a team). */
export function toView(
  fields: TaskFields,
  sections: TaskSections,
  path: string,
  doc?: TaskDocument,
  machine?: string | null,
): TaskView {
  return {
    ...cardFromFields(fields),
    ...(machine ? { machine } : {}),
    created: fields.created,
    started: fields.started,
    completed: fields.completed,
    depends_on: fields.depends_on,
    blocked_by: fields.blocked_by,
    references: fields.references,
    sections,
    path,
    unknown_keys: doc?.unknownKeys ?? [],
    unknown_sections: doc?.unknownSections ?? [],
  };
}
