// The board's index over prepared statements. A factory, not a singleton: each connection (the main
// thread's, a test's second connection, a bench's) gets its own store, and every statement is prepared
// once here. better-sqlite3 types stay inside this file and server/db.
import type { Db } from '../db/open.ts';
import { WITHIN_BUDGET, withBudgetFunction } from '../search/budget.ts';
import {
  type ChangeSource,
  type Kind,
  type Priority,
  parseTaskId,
  priorityRank,
  READY_LABEL,
  type Status,
  type TaskFields,
} from './model.ts';
import { taskKeys } from './task-keys.ts';

export interface TaskRow {
  id: number;
  /** The id as the file writes it (`TASK-046`). */
  key: string;
  path: string;
  title: string;
  status: Status;
  kind: Kind;
  priority: Priority;
  priority_rank: number;
  appetite: string | null;
  swimlane: string | null;
  epic: string | null;
  labels: string;
  created: string | null;
  started: string | null;
  completed: string | null;
  agent_session: string | null;
  depends_on: string;
  blocked_by: string;
  refs: string;
  version: number;
  ready: number;
  body: string;
  content_hash: string;
  indexed_at: string;
  /** In a team: the machine whose record of the task the row shows; null without one. */
  machine: string | null;
  /** The file's own status, holder and version while a newer team record shows instead (else null). */
  file_status: Status | null;
  file_agent_session: string | null;
  file_version: number | null;
}

/** What a row shows of a task whose file says `file`: the file's state, or a newer team record's. */
export interface Effective {
  status: Status;
  agent_session: string | null;
  version: number;
  machine: string | null;
  /** True when the row shows a team record over the file (the file's values are kept in file_*). */
  overlaid: boolean;
}

/** A task's state as its file (or the index, for another tool's version line) gives it. */
export interface FileState {
  status: Status;
  agent_session: string | null;
  version: number;
}

/** How a hub in a team decides what a row shows (team-board.ts); absent when the hub runs alone. */
export type Overlay = (id: number, file: FileState) => Effective;

export interface BoardFilters {
  kind?: string | undefined;
  swimlane?: string | undefined;
  epic?: string | undefined;
  label?: string | undefined;
}

export interface EventRow {
  seq: number;
  task_id: number;
  at: string;
  type: 'created' | 'status' | 'edit' | 'work_log' | 'file' | 'deleted';
  from_status: string | null;
  to_status: string | null;
  agent_session: string | null;
  source: ChangeSource;
  reason: string | null;
  version: number | null;
  detail: string | null;
}

export interface ParseErrorRow {
  path: string;
  reason: string;
  content_hash: string;
  seen_at: string;
}

export interface SearchRow {
  id: number;
  key: string;
  title: string;
  status: Status;
  kind: Kind;
  priority: Priority;
  path: string;
  score: number;
  /** The indexed body, for the snippet (made in JS: FTS5's snippet() is quadratic in a row's matches). */
  body: string;
}

const FILTER_SQL = `
  (@kind IS NULL OR t.kind = @kind)
  AND (@swimlane IS NULL OR t.swimlane = @swimlane)
  AND (@epic IS NULL OR t.epic = @epic)
  AND (@label IS NULL OR EXISTS (SELECT 1 FROM task_labels l WHERE l.task_id = t.id AND l.label = @label))`;

/** A dependency counts as done when complete, or archived after completion (archived without finishing does not). */
const DEP_UNMET_SQL = `
  SELECT 1 FROM task_deps d LEFT JOIN tasks x ON x.id = d.depends_on
  WHERE d.task_id = t.id
    AND (x.id IS NULL OR NOT (x.status = 'complete' OR (x.status = 'archive' AND x.completed IS NOT NULL)))`;

const now = () => new Date().toISOString();

const KNOWN_HEADING = /^#{1,2}[ \t]+(outcome|read first|acceptance|work log)[ \t#]*$/i;

/** The body as search sees it: the known section headings would match every task, so they are left out. */
export function searchableBody(body: string): string {
  return body
    .split(/\r?\n/)
    .filter((l) => !KNOWN_HEADING.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function createBoardStore(db: Db) {
  withBudgetFunction(db);
  const keys = taskKeys(db);
  const s = {
    get: db.prepare<[number], TaskRow>('SELECT * FROM tasks WHERE id = ?'),
    getByPath: db.prepare<[string], TaskRow>('SELECT * FROM tasks WHERE path = ?'),
    upsert: db.prepare(`
      INSERT INTO tasks (id, key, path, title, status, kind, priority, priority_rank, appetite, swimlane, epic, labels,
        created, started, completed, agent_session, depends_on, blocked_by, refs, version, ready, body,
        content_hash, indexed_at, machine, file_status, file_agent_session, file_version)
      VALUES (@id, @key, @path, @title, @status, @kind, @priority, @priority_rank, @appetite, @swimlane, @epic, @labels,
        @created, @started, @completed, @agent_session, @depends_on, @blocked_by, @refs, @version, @ready, @body,
        @content_hash, @indexed_at, @machine, @file_status, @file_agent_session, @file_version)
      ON CONFLICT (id) DO UPDATE SET key = excluded.key, path = excluded.path, title = excluded.title, status = excluded.status,
        kind = excluded.kind, priority = excluded.priority, priority_rank = excluded.priority_rank,
        appetite = excluded.appetite, swimlane = excluded.swimlane, epic = excluded.epic, labels = excluded.labels,
        created = excluded.created, started = excluded.started, completed = excluded.completed,
        agent_session = excluded.agent_session, depends_on = excluded.depends_on, blocked_by = excluded.blocked_by,
        refs = excluded.refs, version = excluded.version, ready = excluded.ready, body = excluded.body,
        content_hash = excluded.content_hash, indexed_at = excluded.indexed_at, machine = excluded.machine,
        file_status = excluded.file_status, file_agent_session = excluded.file_agent_session,
        file_version = excluded.file_version`),
    setEffective: db.prepare(`
      UPDATE tasks SET status = @status, agent_session = @agent_session, version = @version, machine = @machine,
        file_status = @file_status, file_agent_session = @file_agent_session, file_version = @file_version
      WHERE id = @id`),
    teamRows: db.prepare<[], { id: number }>(
      'SELECT id FROM tasks INDEXED BY tasks_team WHERE machine IS NOT NULL OR file_version IS NOT NULL',
    ),
    clearTeam: db.prepare(`
      UPDATE tasks INDEXED BY tasks_team SET status = coalesce(file_status, status),
        agent_session = CASE WHEN file_version IS NULL THEN agent_session ELSE file_agent_session END,
        version = coalesce(file_version, version), machine = NULL, file_status = NULL,
        file_agent_session = NULL, file_version = NULL
      WHERE machine IS NOT NULL OR file_version IS NOT NULL`),
    deleteLabels: db.prepare<[number]>('DELETE FROM task_labels WHERE task_id = ?'),
    insertLabel: db.prepare<[number, string]>(
      'INSERT OR IGNORE INTO task_labels (task_id, label) VALUES (?, ?)',
    ),
    deleteDeps: db.prepare<[number]>('DELETE FROM task_deps WHERE task_id = ?'),
    insertDep: db.prepare<[number, number]>(
      'INSERT OR IGNORE INTO task_deps (task_id, depends_on) VALUES (?, ?)',
    ),
    remove: db.prepare<[number]>('DELETE FROM tasks WHERE id = ?'),
    files: db.prepare<[], { id: number; path: string; content_hash: string }>(
      'SELECT id, path, content_hash FROM tasks',
    ),
    column: db.prepare<Record<string, unknown>, TaskRow>(`
      SELECT * FROM tasks t
      WHERE t.status = @status AND ${FILTER_SQL}
        AND (t.priority_rank > @after_rank OR (t.priority_rank = @after_rank AND t.id > @after_id))
      ORDER BY t.priority_rank, t.id LIMIT @limit`),
    counts: db.prepare<Record<string, unknown>, { status: Status; n: number }>(`
      SELECT t.status AS status, count(*) AS n FROM tasks t WHERE ${FILTER_SQL} GROUP BY t.status`),
    statusCount: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM tasks WHERE status = ?'),
    changeStamp: db
      .prepare<[], string>("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version)")
      .pluck(),
    statusKeys: db.prepare<[string, number], { key: string }>(
      'SELECT key FROM tasks WHERE status = ? ORDER BY priority_rank, id LIMIT ?',
    ),
    // One status at a time (emergency, then icebox) so the scan walks tasks_claim in order and stops at
    // the first task whose dependencies are met, instead of sorting every ready task.
    claimNext: db.prepare<Record<string, unknown>, TaskRow>(`
      SELECT * FROM tasks t INDEXED BY tasks_claim
      WHERE t.ready = 1 AND t.status = @status
        AND (@swimlane IS NULL OR t.swimlane = @swimlane)
        AND NOT EXISTS (${DEP_UNMET_SQL})
        AND t.id NOT IN (SELECT value FROM json_each(@skip))
      ORDER BY t.priority_rank, t.id
      LIMIT 1`),
    readyList: db.prepare<Record<string, unknown>, TaskRow & { unmet: number }>(`
      SELECT t.*, (SELECT count(*) FROM (${DEP_UNMET_SQL})) AS unmet FROM tasks t
      WHERE t.ready = 1 AND t.status IN ('emergency', 'icebox')
        AND (@swimlane IS NULL OR t.swimlane = @swimlane)
      ORDER BY unmet > 0, CASE t.status WHEN 'emergency' THEN 0 ELSE 1 END, t.priority_rank, t.id
      LIMIT @limit OFFSET @offset`),
    readyCount: db.prepare<Record<string, unknown>, { n: number }>(`
      SELECT count(*) AS n FROM tasks t WHERE t.ready = 1 AND t.status IN ('emergency', 'icebox')
        AND (@swimlane IS NULL OR t.swimlane = @swimlane)`),
    search: db.prepare<Record<string, unknown>, SearchRow>(`
      SELECT t.id, t.key, t.title, t.status, t.kind, t.priority, t.path, t.body,
        bm25(tasks_fts, 5.0, 1.0) AS score
      FROM tasks_fts JOIN tasks t ON t.id = tasks_fts.rowid
      WHERE tasks_fts MATCH @q AND ${WITHIN_BUDGET}
        AND (@status IS NULL OR t.status = @status)
        AND (@include_archive = 1 OR t.status != 'archive')
      ORDER BY score LIMIT @limit OFFSET @offset`),
    // How many archived tasks a search left out, for the hint when nothing outside the archive matched.
    searchArchived: db.prepare<Record<string, unknown>, { n: number }>(`
      SELECT count(*) AS n FROM tasks_fts JOIN tasks t ON t.id = tasks_fts.rowid
      WHERE tasks_fts MATCH @q AND ${WITHIN_BUDGET} AND t.status = 'archive'`),
    // dep_id, not depends_on: tasks has a depends_on column of its own that would shadow it.
    dependencies: db.prepare<[number], { dep_id: number } & Partial<TaskRow>>(`
      SELECT t.*, d.depends_on AS dep_id FROM task_deps d LEFT JOIN tasks t ON t.id = d.depends_on
      WHERE d.task_id = ? ORDER BY d.depends_on`),
    dependents: db.prepare<[number], TaskRow>(`
      SELECT t.* FROM task_deps d JOIN tasks t ON t.id = d.task_id WHERE d.depends_on = ? ORDER BY t.id`),
    unmetDeps: db.prepare<[number], { n: number }>(
      `SELECT count(*) AS n FROM (${DEP_UNMET_SQL.replace('d.task_id = t.id', 'd.task_id = ?')})`,
    ),
    insertEvent: db.prepare(`
      INSERT INTO task_events (task_id, at, type, from_status, to_status, agent_session, source, reason, version, detail)
      VALUES (@task_id, @at, @type, @from_status, @to_status, @agent_session, @source, @reason, @version, @detail)`),
    events: db.prepare<[number, number, number], EventRow>(
      'SELECT * FROM task_events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    insertBypass: db.prepare(`
      INSERT INTO wip_bypasses (task_id, at, column_status, cap, count_before, reason, agent_session, source)
      VALUES (@task_id, @at, @column_status, @cap, @count_before, @reason, @agent_session, @source)`),
    recentBypasses: db.prepare<[number], Record<string, unknown>>(
      'SELECT * FROM wip_bypasses ORDER BY seq DESC LIMIT ?',
    ),
    upsertParseError: db.prepare<[string, string, string, string]>(`
      INSERT INTO task_parse_errors (path, reason, content_hash, seen_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (path) DO UPDATE SET reason = excluded.reason, content_hash = excluded.content_hash,
        seen_at = excluded.seen_at`),
    deleteParseError: db.prepare<[string]>('DELETE FROM task_parse_errors WHERE path = ?'),
    parseErrors: db.prepare<[], ParseErrorRow>('SELECT * FROM task_parse_errors ORDER BY path'),
    nextId: db.prepare<[], { next_id: number }>(
      'UPDATE task_id_counter SET next_id = next_id + 1 WHERE singleton = 1 RETURNING next_id - 1 AS next_id',
    ),
    raiseCounter: db.prepare<[number]>(
      'UPDATE task_id_counter SET next_id = max(next_id, ?) WHERE singleton = 1',
    ),
    peekId: db.prepare<[], { next_id: number }>('SELECT next_id FROM task_id_counter WHERE singleton = 1'),
    maxId: db.prepare<[], { m: number | null }>('SELECT max(id) AS m FROM tasks'),
    total: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM tasks'),
    claimedBy: db.prepare<[string], { id: number; key: string; title: string }>(
      "SELECT id, key, title FROM tasks WHERE status = 'in_progress' AND agent_session = ? ORDER BY started DESC, id DESC LIMIT 1",
    ),
    swimlanes: db.prepare<[], { swimlane: string }>(
      'SELECT DISTINCT swimlane FROM tasks WHERE swimlane IS NOT NULL ORDER BY swimlane',
    ),
  };

  const filterParams = (f: BoardFilters) => ({
    kind: f.kind ?? null,
    swimlane: f.swimlane ?? null,
    epic: f.epic ?? null,
    label: f.label ?? null,
  });

  let overlay: Overlay | undefined;

  /** The state a row of a file in state `file` shows: the file's, or (in a team) a newer record's. */
  const effective = (id: number, file: FileState): Effective =>
    overlay?.(id, file) ?? { ...file, machine: null, overlaid: false };

  const fileState = (row: TaskRow): FileState =>
    row.file_version === null
      ? { status: row.status, agent_session: row.agent_session, version: row.version }
      : {
          status: row.file_status ?? row.status,
          agent_session: row.file_agent_session,
          version: row.file_version,
        };

  return {
    db,
    get: (id: number): TaskRow | undefined => s.get.get(id),
    getByPath: (path: string): TaskRow | undefined => s.getByPath.get(path),
    /** In a team: what rows show over their files from now on (every upsert and reapply asks it). */
    setOverlay(fn: Overlay | undefined): void {
      overlay = fn;
    },
    get teamOverlay(): boolean {
      return overlay !== undefined;
    },
    /** The file's own state of an indexed task (what the row shows when no team record is newer). */
    fileState,
    /**
     * Re-derives what task `id`'s row shows from its file's state and the overlay (a team record came);
     * returns the row before and after when that changed, else undefined.
     */
    reapply(id: number): { before: TaskRow; after: TaskRow } | undefined {
      const before = s.get.get(id);
      if (before === undefined) return undefined;
      const file = fileState(before);
      const e = effective(id, file);
      const after: TaskRow = {
        ...before,
        status: e.status,
        agent_session: e.agent_session,
        version: e.version,
        machine: e.machine,
        file_status: e.overlaid ? file.status : null,
        file_agent_session: e.overlaid ? file.agent_session : null,
        file_version: e.overlaid ? file.version : null,
      };
      if (
        after.status === before.status &&
        after.agent_session === before.agent_session &&
        after.version === before.version &&
        after.machine === before.machine &&
        after.file_version === before.file_version
      )
        return undefined;
      s.setEffective.run({
        id,
        status: after.status,
        agent_session: after.agent_session,
        version: after.version,
        machine: after.machine,
        file_status: after.file_status,
        file_agent_session: after.file_agent_session,
        file_version: after.file_version,
      });
      return { before, after };
    },
    /** Ids of the rows a team record touches (shown over the file, or naming a machine). */
    teamRows: (): number[] => s.teamRows.all().map((r) => r.id),
    /** Every row back to what its file says (a hub started without the team it had). */
    clearTeam: (): number => s.clearTeam.run().changes,
    upsert(fields: TaskFields, path: string, body: string, hash: string): void {
      const file = { status: fields.status, agent_session: fields.agent_session, version: fields.version };
      const e = effective(fields.id, file);
      s.upsert.run({
        id: fields.id,
        key: fields.key,
        path,
        title: fields.title,
        status: e.status,
        kind: fields.kind,
        priority: fields.priority,
        priority_rank: priorityRank(fields.priority),
        appetite: fields.appetite,
        swimlane: fields.swimlane,
        epic: fields.epic,
        labels: JSON.stringify(fields.labels),
        created: fields.created,
        started: fields.started,
        completed: fields.completed,
        agent_session: e.agent_session,
        depends_on: JSON.stringify(fields.depends_on),
        blocked_by: JSON.stringify(fields.blocked_by),
        refs: JSON.stringify(fields.references),
        version: e.version,
        ready: fields.labels.includes(READY_LABEL) ? 1 : 0,
        body: searchableBody(body),
        content_hash: hash,
        indexed_at: now(),
        machine: e.machine,
        file_status: e.overlaid ? file.status : null,
        file_agent_session: e.overlaid ? file.agent_session : null,
        file_version: e.overlaid ? file.version : null,
      });
      s.deleteLabels.run(fields.id);
      for (const l of fields.labels) s.insertLabel.run(fields.id, l);
      s.deleteDeps.run(fields.id);
      for (const d of fields.depends_on) {
        const n = parseTaskId(d);
        if (n !== null) s.insertDep.run(fields.id, n);
      }
      s.raiseCounter.run(fields.id + 1);
    },
    remove: (id: number): void => {
      s.remove.run(id);
    },
    files: () => s.files.all(),
    column: (
      status: Status,
      f: BoardFilters,
      after: { rank: number; id: number },
      limit: number,
    ): TaskRow[] =>
      s.column.all({ status, ...filterParams(f), after_rank: after.rank, after_id: after.id, limit }),
    counts: (f: BoardFilters) => s.counts.all(filterParams(f)),
    statusCount: (status: Status): number => s.statusCount.get(status)?.n ?? 0,
    statusKeys: (status: Status, limit: number): string[] =>
      s.statusKeys.all(status, limit).map((r) => r.key),
    /**
     * Changes whenever the database may have changed: a write on this connection (total_changes) or a
     * commit by another (data_version). What is derived from the index is kept until this changes.
     */
    changeStamp: (): string => s.changeStamp.get() as string,
    /** The next task to claim, passing over the ids in `skip` (tasks the definition of ready holds back). */
    claimNext: (swimlane: string | null, skip: readonly number[] = []): TaskRow | undefined => {
      const params = { swimlane, skip: JSON.stringify(skip) };
      return (
        s.claimNext.get({ ...params, status: 'emergency' }) ??
        s.claimNext.get({ ...params, status: 'icebox' })
      );
    },
    readyList: (swimlane: string | null, limit: number, offset: number) =>
      s.readyList.all({ swimlane, limit, offset }),
    readyCount: (swimlane: string | null): number => s.readyCount.get({ swimlane })?.n ?? 0,
    search: (q: string, status: Status | null, includeArchive: boolean, limit: number, offset: number) =>
      s.search.all({ q, status, include_archive: includeArchive ? 1 : 0, limit, offset }),
    searchArchived: (q: string): number => s.searchArchived.get({ q })?.n ?? 0,
    dependencies: (id: number) => s.dependencies.all(id),
    dependents: (id: number) => s.dependents.all(id),
    unmetDeps: (id: number): number => s.unmetDeps.get(id)?.n ?? 0,
    /** `at`: when the change was made (a move's planned time, which its front matter says); default now. */
    insertEvent(e: Omit<EventRow, 'seq' | 'at'> & { at?: string | undefined }): void {
      s.insertEvent.run({ ...e, at: e.at ?? now() });
    },
    events: (id: number, afterSeq: number, limit: number): EventRow[] => s.events.all(id, afterSeq, limit),
    insertBypass(b: {
      task_id: number;
      column_status: Status;
      cap: number;
      count_before: number;
      reason: string;
      agent_session: string | null;
      source: ChangeSource;
    }): void {
      s.insertBypass.run({ ...b, at: now() });
    },
    recentBypasses: (limit: number) => s.recentBypasses.all(limit),
    setParseError: (path: string, reason: string, hash: string): void => {
      s.upsertParseError.run(path, reason, hash, now());
    },
    clearParseError: (path: string): void => {
      s.deleteParseError.run(path);
    },
    parseErrors: (): ParseErrorRow[] => s.parseErrors.all(),
    /** Must run inside a write transaction: that is what makes the id unique across connections. */
    allocateId: (): number => {
      const row = s.nextId.get();
      if (row === undefined) throw new Error('task_id_counter row is missing');
      return row.next_id;
    },
    raiseCounter: (min: number): void => {
      s.raiseCounter.run(min);
    },
    /** The id the next create would take here (not taken: a team reserves it first, team-board.ts). */
    peekId: (): number => s.peekId.get()?.next_id ?? 1,
    maxId: (): number => s.maxId.get()?.m ?? 0,
    total: (): number => s.total.get()?.n ?? 0,
    /** The key of task `id` as its file writes it (one helper for every reader: task-keys.ts). */
    keyOf: keys.keyOf,
    /** Digits new ids are padded to (0: the board does not pad). */
    padWidth: keys.padWidth,
    /** The in-progress task an agent session holds, the one it started last. */
    claimedBy: (agentSession: string): { id: number; key: string; title: string } | undefined =>
      s.claimedBy.get(agentSession),
    swimlanes: (): string[] => s.swimlanes.all().map((r) => r.swimlane),
  };
}

export type BoardStore = ReturnType<typeof createBoardStore>;
