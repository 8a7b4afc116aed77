// The read side of the board: the columns page by page, one task, the ready queue, a task's history and
// its dependencies, and the board's configuration. Reads answer from the index; only cos_task_show reads
// the file, and takes the write lock only when the file changed since the index saw it.
import { relative } from 'node:path';
import type { BoardSettings } from './board-config.ts';
import { type CursorPosition, combinedCursor, decodeCursor, encodeCursor } from './cursor.ts';
import { requireTaskId, taskNotFound } from './ids.ts';
import { COLUMN_ORDER, parseTaskId, READY_LABEL, type Status, TRANSITIONS } from './model.ts';
import { type Reconciler, shownDoc } from './reconcile.ts';
import type { BoardFilters, BoardStore, EventRow, TaskRow } from './store.ts';
import { contentHash, type ParseResult } from './task-file.ts';
import type { TasksDir } from './tasks-dir.ts';
import { MAX_PAGE, rowToCard, type TaskCard, type TaskView, toView } from './views.ts';
import type { Wip, WipColumn } from './wip.ts';
import type { WritePath } from './write-path.ts';

export interface BoardColumn {
  status: Status;
  /** Cards in this column that match the filters (all pages). */
  count: number;
  cap: number | null;
  over_cap: boolean;
  cards: TaskCard[];
  /** Pass as `cursor` to get this column's next page; null when this page is the last. */
  next_cursor: string | null;
}

export interface BoardQuery extends BoardFilters {
  status?: Status | undefined;
  include_archive?: boolean | undefined;
  /** Cards per column (default 20). */
  limit?: number | undefined;
  /** A cursor from a previous page: answers only the columns it names, after the cards already seen. */
  cursor?: string | undefined;
}

export interface ParseErrorView {
  path: string;
  reason: string;
}

export interface BoardPage {
  columns: BoardColumn[];
  /** Every column's next page at once; null when every column is complete. */
  next_cursor: string | null;
  total: number;
  wip: WipColumn[];
  parse_errors: ParseErrorView[];
  parse_error_count: number;
}

export interface HistoryEntry {
  seq: number;
  at: string;
  type: EventRow['type'];
  from_status: string | null;
  to_status: string | null;
  agent_session: string | null;
  source: EventRow['source'];
  reason: string | null;
  version: number | null;
  detail: unknown;
}

const DEFAULT_PAGE = 20;

export interface ReadsOptions {
  repo: string;
  store: BoardStore;
  dir: TasksDir;
  settings: () => BoardSettings;
  writes: WritePath;
  reconciler: Reconciler;
  wip: Wip;
  parseTask: (text: string, fileName: string) => ParseResult;
}

export function createReads({
  repo,
  store,
  dir,
  settings,
  writes,
  reconciler,
  wip,
  parseTask,
}: ReadsOptions) {
  function show(idText: string): TaskView {
    const id = requireTaskId(idText);
    // The common case needs no write lock: the file is what the index last saw.
    const row = store.get(id);
    const text = row === undefined ? null : dir.read(row.path);
    if (row !== undefined && text !== null && contentHash(text) === row.content_hash) {
      const parsed = parseTask(text, row.path);
      if (parsed.ok) {
        const doc = shownDoc(parsed.doc, row);
        return toView(doc.fields, doc.sections, dir.repoPath(row.path), doc, row.machine);
      }
    }
    return writes.write(() => {
      const l = reconciler.load(id);
      return toView(l.doc.fields, l.doc.sections, dir.repoPath(l.name), l.doc, writes.machineOf(id));
    });
  }

  function board(q: BoardQuery = {}): BoardPage {
    const limit = Math.min(Math.max(q.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
    const filters: BoardFilters = { kind: q.kind, swimlane: q.swimlane, epic: q.epic, label: q.label };
    const caps = settings().wip;
    const counts = new Map(store.counts(filters).map((r) => [r.status, r.n]));
    let statuses: Status[];
    let positions = new Map<Status, CursorPosition>();
    if (q.cursor !== undefined) {
      positions = decodeCursor(q.cursor);
      statuses = COLUMN_ORDER.filter((s) => positions.has(s));
    } else if (q.status !== undefined) statuses = [q.status];
    else statuses = COLUMN_ORDER.filter((s) => s !== 'archive' || q.include_archive);
    const columns: BoardColumn[] = statuses.map((status) => {
      const rows = store.column(status, filters, positions.get(status) ?? { rank: -1, id: 0 }, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const cap = caps[status] ?? null;
      return {
        status,
        count: counts.get(status) ?? 0,
        cap,
        over_cap: cap !== null && store.statusCount(status) > cap,
        cards: page.map(rowToCard),
        next_cursor:
          rows.length > limit && last
            ? encodeCursor({ [status]: { rank: last.priority_rank, id: last.id } })
            : null,
      };
    });
    const errors = store.parseErrors();
    return {
      columns,
      next_cursor: combinedCursor(columns),
      total: [...counts.values()].reduce((a, b) => a + b, 0),
      wip: wip.columns(),
      parse_errors: errors.slice(0, 20).map((e) => ({ path: dir.repoPath(e.path), reason: e.reason })),
      parse_error_count: errors.length,
    };
  }

  function ready(
    opts: { swimlane?: string | undefined; limit?: number | undefined; offset?: number | undefined } = {},
  ) {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), MAX_PAGE);
    const offset = Math.max(opts.offset ?? 0, 0);
    const rows = store.readyList(opts.swimlane ?? null, limit, offset);
    const total = store.readyCount(opts.swimlane ?? null);
    return {
      tasks: rows.map((r) => ({ ...rowToCard(r), claimable: r.unmet === 0, unmet_dependencies: r.unmet })),
      total,
      next_offset: offset + rows.length < total ? offset + rows.length : null,
    };
  }

  function history(
    idText: string,
    opts: { after_seq?: number | undefined; limit?: number | undefined } = {},
  ) {
    const id = requireTaskId(idText);
    const limit = Math.min(Math.max(opts.limit ?? 100, 1), MAX_PAGE);
    const rows = store.events(id, opts.after_seq ?? 0, limit + 1);
    if (rows.length === 0 && store.get(id) === undefined && (opts.after_seq ?? 0) === 0)
      throw taskNotFound(id);
    const page = rows.slice(0, limit);
    const entries: HistoryEntry[] = page.map((r) => ({
      seq: r.seq,
      at: r.at,
      type: r.type,
      from_status: r.from_status,
      to_status: r.to_status,
      agent_session: r.agent_session,
      source: r.source,
      reason: r.reason,
      version: r.version,
      detail: r.detail === null ? null : (JSON.parse(r.detail) as unknown),
    }));
    const last = page[page.length - 1];
    return {
      task_id: store.keyOf(id),
      events: entries,
      next_after_seq: rows.length > limit && last ? last.seq : null,
    };
  }

  const depView = (row: TaskRow) => ({
    ...rowToCard(row),
    done: row.status === 'complete' || (row.status === 'archive' && row.completed !== null),
  });

  function dependencies(idText: string) {
    const id = requireTaskId(idText);
    const row = store.get(id);
    if (row === undefined) throw taskNotFound(id);
    const deps = store.dependencies(id);
    const found = deps.filter((d) => d.id !== null && d.id !== undefined).map((d) => depView(d as TaskRow));
    // A dependency that names no task is shown as the file writes it.
    const written = new Map(
      (JSON.parse(row.depends_on) as string[]).map((k) => [parseTaskId(k), k] as const),
    );
    const missing = deps
      .filter((d) => d.id === null || d.id === undefined)
      .map((d) => written.get(d.dep_id) ?? store.keyOf(d.dep_id));
    return {
      task_id: row.key,
      dependencies: found,
      missing,
      all_complete: missing.length === 0 && found.every((d) => d.done),
    };
  }

  function dependents(idText: string) {
    const id = requireTaskId(idText);
    const row = store.get(id);
    if (row === undefined) throw taskNotFound(id);
    return { task_id: row.key, dependents: store.dependents(id).map(rowToCard) };
  }

  function config() {
    const s: BoardSettings = settings();
    const lanes = new Set(s.swimlanes);
    for (const lane of store.swimlanes()) lanes.add(lane);
    return {
      columns: COLUMN_ORDER.map((status) => ({
        status,
        cap: s.wip[status] ?? null,
        transitions: [...TRANSITIONS[status]],
      })),
      swimlanes: [...lanes],
      wip_caps: s.wip,
      config_file: s.file,
      config_error: s.error,
      tasks_dir: relative(repo, dir.path) || '.',
      priorities: ['P0', 'P1', 'P2', 'P3'],
      ready_label: READY_LABEL,
    };
  }

  const parseErrors = (): ParseErrorView[] =>
    store.parseErrors().map((e) => ({ path: dir.repoPath(e.path), reason: e.reason }));

  return { show, board, ready, history, dependencies, dependents, config, parseErrors };
}
