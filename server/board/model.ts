// The board's vocabulary: statuses, kinds, priorities, the transition table. One place, so the tools'
// schemas, the file parser and the service cannot disagree.

export const STATUSES = [
  'icebox',
  'emergency',
  'in_progress',
  'testing',
  'complete',
  'blocked',
  'archive',
] as const;
export type Status = (typeof STATUSES)[number];

/** Column order on the board: what needs attention first. */
export const COLUMN_ORDER: readonly Status[] = [
  'emergency',
  'in_progress',
  'testing',
  'blocked',
  'icebox',
  'complete',
  'archive',
];

export const KINDS = ['feature', 'bug', 'chore', 'spike', 'docs', 'refactor', 'test', 'security'] as const;
export type Kind = (typeof KINDS)[number];

export const PRIORITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** `30m`, `2h`, `1d`, `1w`, `1cy` (cycles). */
export const APPETITE_PATTERN = '^[1-9][0-9]{0,3}(m|h|d|w|cy)$';
export const APPETITE_RE = new RegExp(APPETITE_PATTERN);

/** "ready" is a label, not a status: claim-next and cos_task_ready look for it. */
export const READY_LABEL = 'ready';

export const TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  icebox: ['in_progress', 'emergency', 'archive'],
  emergency: ['in_progress', 'icebox'],
  in_progress: ['testing', 'blocked', 'icebox', 'emergency', 'complete'],
  testing: ['complete', 'in_progress', 'blocked'],
  complete: ['archive'],
  blocked: ['in_progress', 'emergency', 'icebox'],
  archive: ['icebox', 'complete'],
};

/** Where a task's work is over (done, or put away): the board's own words, for every reader that asks. */
export const FINISHED_STATUSES: readonly Status[] = ['complete', 'archive'];
export const isFinished = (status: string): boolean =>
  (FINISHED_STATUSES as readonly string[]).includes(status);

export function canTransition(from: Status, to: Status): boolean {
  return TRANSITIONS[from].includes(to);
}

export const isStatus = (v: unknown): v is Status =>
  typeof v === 'string' && (STATUSES as readonly string[]).includes(v);
export const isKind = (v: unknown): v is Kind =>
  typeof v === 'string' && (KINDS as readonly string[]).includes(v);
export const isPriority = (v: unknown): v is Priority =>
  typeof v === 'string' && (PRIORITIES as readonly string[]).includes(v);

export const priorityRank = (p: Priority): number => PRIORITIES.indexOf(p);

/** The key of a task numbered `n` on a board without zero padding (and the fallback for a number alone). */
export const taskKey = (n: number): string => `TASK-${n}`;

/** The key a new task numbered `n` gets on a board whose ids are zero-padded to `width` digits. */
export const formatTaskKey = (n: number, width: number): string => `TASK-${String(n).padStart(width, '0')}`;

/**
 * Accepts `TASK-12`, `task-12`, `12`, and zero-padded forms (`TASK-012`, `012`); null for anything else.
 * Boards in the wild pad their ids, so the number, not the spelling, is what two spellings share.
 */
export function parseTaskId(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v > 0 ? v : null;
  if (typeof v !== 'string') return null;
  const m = /^(?:TASK-)?0*([1-9][0-9]{0,8})$/i.exec(v.trim());
  return m?.[1] === undefined ? null : Number(m[1]);
}

/** A task key written the way files write ids (`TASK-046`, `task-7`): the key kept verbatim, and its number. */
export function parseTaskKey(v: string): { key: string; n: number } | null {
  const m = /^TASK-0*([1-9][0-9]{0,8})$/i.exec(v);
  return m?.[1] === undefined ? null : { key: v, n: Number(m[1]) };
}

/**
 * The task key a file name starts with (`TASK-046-slug.md`, `task-6 - Title.md`), or null: a name need not
 * carry one when the front matter has the id.
 */
export function fileNameKey(name: string): { key: string; n: number } | null {
  const m = /^(TASK-0*([1-9][0-9]{0,8}))(?![0-9])/i.exec(name);
  return m?.[1] === undefined || m[2] === undefined ? null : { key: m[1], n: Number(m[2]) };
}

/** Lower-case, dash-separated, at most 48 characters: stable file names that read well in `ls` and git. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return slug === '' ? 'task' : slug;
}

/** The fields that live in the YAML front matter, in the order a new file lists them. */
export interface TaskFields {
  /** The task's number: what `TASK-46`, `TASK-046` and `46` all name. */
  id: number;
  /** The id as the file writes it (`TASK-046`), kept verbatim in answers and files. */
  key: string;
  title: string;
  status: Status;
  kind: Kind;
  priority: Priority;
  appetite: string | null;
  swimlane: string | null;
  epic: string | null;
  labels: string[];
  created: string | null;
  started: string | null;
  completed: string | null;
  agent_session: string | null;
  /** Task keys (`TASK-<n>`). */
  depends_on: string[];
  /** Free text or task keys: what blocks this task. */
  blocked_by: string[];
  references: string[];
  version: number;
}

export const FIELD_ORDER: readonly (keyof TaskFields)[] = [
  'id',
  'title',
  'status',
  'kind',
  'priority',
  'appetite',
  'swimlane',
  'epic',
  'labels',
  'created',
  'started',
  'completed',
  'agent_session',
  'depends_on',
  'blocked_by',
  'references',
  'version',
];

export const SECTION_NAMES = ['Outcome', 'Read First', 'Acceptance', 'Work Log'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export interface TaskSections {
  outcome: string;
  read_first: string;
  acceptance: string;
  work_log: string;
}

export const SECTION_KEYS: Readonly<Record<SectionName, keyof TaskSections>> = {
  Outcome: 'outcome',
  'Read First': 'read_first',
  Acceptance: 'acceptance',
  'Work Log': 'work_log',
};

export type ChangeSource = 'file' | 'api' | 'mcp';

/** Who is changing the board: the agent session (when an agent says so) and where the change came from. */
export interface Actor {
  agentSession?: string | undefined;
  source: ChangeSource;
}
