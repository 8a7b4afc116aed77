// The board service: task files are the truth, the SQLite index serves queries. Every change writes the
// file first (a temp file fsynced off the event loop, then a rename) and then the index, the rename and
// the index update inside one IMMEDIATE transaction that re-checks the change (durableChange): the write
// lock is the mutex that makes claim-next, id allocation and version checks atomic across connections
// and processes, and a crash between the two steps leaves a file that reconciliation re-reads at start.
import { type FSWatcher, mkdirSync, readdirSync, readFileSync, statSync, watch } from 'node:fs';
import { join, relative } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { KeyedQueue } from '../keyed-queue.ts';
import { installTemp, isTempName, releaseOld, removeTemp } from './atomic-write.ts';
import { type BoardSettings, boardSettingsLoader } from './board-config.ts';
import { FileWriter } from './file-writer.ts';
import {
  type Actor,
  type ChangeSource,
  COLUMN_ORDER,
  canTransition,
  type Kind,
  type Priority,
  parseTaskId,
  READY_LABEL,
  STATUSES,
  type Status,
  slugify,
  TASK_FILE_RE,
  type TaskFields,
  type TaskSections,
  TRANSITIONS,
  taskKey,
} from './model.ts';
import {
  type BoardFilters,
  type BoardStore,
  createBoardStore,
  type EventRow,
  type TaskRow,
} from './store.ts';
import {
  contentHash,
  parseCache,
  renderNewTask,
  renderTask,
  type TaskDocument,
  taskFileName,
} from './task-file.ts';

// ---------------------------------------------------------------------------------------------------
// Public shapes

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

export interface WipColumn {
  status: Status;
  count: number;
  cap: number;
  at_cap: boolean;
  over_cap: boolean;
  task_ids: string[];
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

export interface WriteOptions {
  /** The version the caller last read; a different current version refuses the write. */
  expected_version?: number | undefined;
}

export interface CreateInput {
  title: string;
  kind?: Kind | undefined;
  priority?: Priority | undefined;
  status?: 'icebox' | 'emergency' | undefined;
  appetite?: string | undefined;
  swimlane?: string | undefined;
  epic?: string | undefined;
  labels?: string[] | undefined;
  ready?: boolean | undefined;
  depends_on?: string[] | undefined;
  blocked_by?: string[] | undefined;
  references?: string[] | undefined;
  outcome?: string | undefined;
  read_first?: string | undefined;
  acceptance?: string | undefined;
  bypass_wip?: boolean | undefined;
  reason?: string | undefined;
}

export interface EditPatch {
  title?: string | undefined;
  kind?: Kind | undefined;
  priority?: Priority | undefined;
  appetite?: string | null | undefined;
  swimlane?: string | null | undefined;
  epic?: string | null | undefined;
  labels?: string[] | undefined;
  add_labels?: string[] | undefined;
  remove_labels?: string[] | undefined;
  depends_on?: string[] | undefined;
  blocked_by?: string[] | undefined;
  references?: string[] | undefined;
  agent_session?: string | null | undefined;
  outcome?: string | undefined;
  read_first?: string | undefined;
  acceptance?: string | undefined;
}

export interface MoveOptions extends WriteOptions {
  reason?: string | undefined;
  bypass_wip?: boolean | undefined;
}

export interface TaskChange {
  task: TaskView;
  old_status: Status | null;
  new_status: Status;
  changed: string[];
  wip_bypassed: boolean;
}

export interface ClaimResult {
  claimed: boolean;
  task: TaskView | null;
  message: string;
}

export interface ReconcileReport {
  files: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  parse_errors: number;
}

export interface TaskUpdatedEvent {
  /** Null only for a `bulk` change. */
  task_id: string | null;
  /** `bulk`: many files changed at once (a git checkout); `task_ids` lists them, refetch the board. */
  change: 'created' | 'moved' | 'edited' | 'work_log' | 'claimed' | 'file' | 'deleted' | 'bulk';
  old_status: Status | null;
  new_status: Status | null;
  agent_session: string | null;
  source: ChangeSource;
  version: number | null;
  task_ids?: string[];
}

export interface HistoryEntry {
  seq: number;
  at: string;
  type: EventRow['type'];
  from_status: string | null;
  to_status: string | null;
  agent_session: string | null;
  source: ChangeSource;
  reason: string | null;
  version: number | null;
  detail: unknown;
}

export interface BoardServiceOptions {
  config: Config;
  db: Db;
  events: EventBus;
  logger: Logger;
  /** Watch the tasks directory after start() (default true). */
  watch?: boolean;
  /** Quiet period before changed files are re-read (default 100 ms). */
  debounceMs?: number;
  /** Full re-scan interval as a safety net for missed watch events (default 60 s; 0 turns it off). */
  rescanMs?: number;
  /** fsync the directory after each rename (default true; benches and tests may turn it off). */
  durable?: boolean;
}

export type BoardService = ReturnType<typeof createBoardService>;

/** What a change would write: one task file, and the index update that goes with it. */
interface FilePlan<T> {
  /** File name inside the tasks directory. */
  name: string;
  text: string;
  /** true: a new file, which must not exist yet; false: replaces the file. */
  create: boolean;
  /** Updates the index and announces the change, in the transaction that installs the file. */
  commit: () => T;
  /** For `create`: the name turned out to be taken; choose another before the step runs again. */
  taken?: () => void;
}

/** The outcome of one run of a change's decision step: nothing to write (`done`), or a file to write. */
type Step<T> = { done: T } | FilePlan<T>;

declare module '../tools/context.ts' {
  interface HubServices {
    board: BoardService;
  }
}

// ---------------------------------------------------------------------------------------------------

const DEFAULT_PAGE = 20;
const MAX_PAGE = 500;
const MAX_CLAIM_ATTEMPTS = 50;
/** Tries of a durable change whose file another writer kept changing under it (see durableChange). */
const MAX_WRITE_ATTEMPTS = 20;
/** More changes than this in one transaction are announced as one `bulk` event. */
const BULK_EVENT_THRESHOLD = 100;
const nowIso = () => new Date().toISOString();

const parseList = (json: string): string[] => JSON.parse(json) as string[];

export function rowToCard(row: TaskRow): TaskCard {
  const card: TaskCard = {
    id: taskKey(row.id),
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
  return card;
}

export interface CursorPosition {
  rank: number;
  id: number;
}

/**
 * A cursor maps columns to the last card already seen in each (priority rank, id). One column's
 * next_cursor names that column; the board's meta.next_cursor names every column with more cards, so
 * following it alone walks the whole board.
 */
export function encodeCursor(positions: Partial<Record<Status, CursorPosition>>): string {
  const compact: Record<string, [number, number]> = {};
  for (const [status, p] of Object.entries(positions) as [Status, CursorPosition][])
    compact[status] = [p.rank, p.id];
  return Buffer.from(JSON.stringify(compact)).toString('base64url');
}

export function decodeCursor(cursor: string): Map<Status, CursorPosition> {
  const bad = new ToolError(
    'validation',
    'cursor is not one this board issued; pass a next_cursor from a previous page (with the same filters)',
  );
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad;
  const out = new Map<Status, CursorPosition>();
  for (const [status, pos] of Object.entries(v)) {
    if (!(STATUSES as readonly string[]).includes(status)) throw bad;
    if (!Array.isArray(pos) || pos.length !== 2 || !pos.every((x) => Number.isInteger(x))) throw bad;
    out.set(status as Status, { rank: pos[0] as number, id: pos[1] as number });
  }
  if (out.size === 0) throw bad;
  return out;
}

/** One cursor for every column that has more cards. */
export function combinedCursor(columns: BoardColumn[]): string | null {
  const positions: Partial<Record<Status, CursorPosition>> = {};
  for (const c of columns) {
    if (c.next_cursor === null) continue;
    for (const [status, pos] of decodeCursor(c.next_cursor)) positions[status] = pos;
  }
  return Object.keys(positions).length === 0 ? null : encodeCursor(positions);
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

export function createBoardService(options: BoardServiceOptions) {
  const { config, db, events, logger } = options;
  const log = logger.child({ module: 'board' });
  const store: BoardStore = createBoardStore(db);
  const tasksDir = config.tasksDir;
  const settings = boardSettingsLoader(config.stateDir);
  /** Writes and fsyncs temp files off the main thread (and fsyncs the directory after the installs). */
  const files = new FileWriter(tasksDir, { syncDir: options.durable ?? true });
  const parseTask = parseCache();
  /** Changes to one task (and claims) wait for each other in this process: see durableChange. */
  const queue = new KeyedQueue();
  const claimedStatement = db.prepare<[string], { id: number; title: string }>(
    "SELECT id, title FROM tasks WHERE status = 'in_progress' AND agent_session = ? ORDER BY started DESC, id DESC LIMIT 1",
  );
  const debounceMs = options.debounceMs ?? 100;
  const rescanMs = options.rescanMs ?? 60_000;

  /** Events wait here until their transaction commits, so a rolled-back change is never announced. */
  let outbox: TaskUpdatedEvent[] = [];
  let watcher: FSWatcher | null = null;
  let rescanTimer: NodeJS.Timeout | null = null;
  let flushTimer: NodeJS.Timeout | null = null;
  let firstPending = 0;
  const pending = new Set<string>();
  let closed = false;

  const repoPath = (name: string) => relative(config.repo, join(tasksDir, name));

  /** Runs `fn` in one IMMEDIATE transaction; returns its result and the events it announced, unpublished. */
  function transact<T>(fn: () => T): { result: T; announced: TaskUpdatedEvent[] } {
    outbox = [];
    let result: T;
    try {
      result = db.transaction(fn).immediate();
    } catch (err) {
      outbox = [];
      if (isBusy(err))
        throw new ToolError('transient', 'the board index is busy with another writer; retry in a moment', {
          retryable: true,
          cause: err,
        });
      throw err;
    }
    const announced = outbox;
    outbox = [];
    return { result, announced };
  }

  function publish(out: TaskUpdatedEvent[]): void {
    if (out.length > BULK_EVENT_THRESHOLD) {
      // A checkout of thousands of files would flush the live stream's ring buffer; one event says it all.
      events.publish('task-updated', {
        task_id: null,
        change: 'bulk',
        old_status: null,
        new_status: null,
        agent_session: null,
        source: out[0]?.source ?? 'file',
        version: null,
        task_ids: out.map((e) => e.task_id).filter((id): id is string => id !== null),
      } satisfies TaskUpdatedEvent);
    } else for (const e of out) events.publish('task-updated', e);
  }

  /** An index-only change: one transaction, its events published once it commits. */
  function write<T>(fn: () => T): T {
    const { result, announced } = transact(fn);
    publish(announced);
    return result;
  }

  /**
   * A change to one task file and the index, durable before it resolves. `step` decides, from the files
   * and the index as they are now, what the file should become: it validates (throwing ToolErrors), may
   * resync the index from a file edited by hand, and returns either an answer that needs no file
   * (`done`) or the new text with a `commit` that updates the index and announces the change. It must
   * not change anything else, because it runs twice:
   *
   * 1. in a transaction, to learn the text; the text is written to a temp file and fsynced on the file
   *    writer's thread while the event loop serves other calls;
   * 2. in a second transaction, which holds the write lock every board writer takes (in this process or
   *    another): if `step` now gives the same file and text, the temp file is renamed (or linked) into
   *    place and `commit` runs, so the rename and the index change commit together, exactly as if the
   *    whole change had run in that one transaction. If another writer got there first (a different
   *    version, a claimed task, a WIP cap now reached), the second run says so: its error is the answer,
   *    or its new text is written and tried again.
   *
   * The second run happens as soon as the main thread sees the temp file durable, at the end of the same
   * turn of the event loop on a busy hub (see file-writer.ts). The directory is then fsynced (shared
   * with the writers of that moment) and only then are the events published and the call answered.
   * `key` queues changes to one task behind each other in this process, so they rarely need a second
   * try; correctness does not depend on it.
   */
  async function durableChange<T>(key: string | null, step: () => Step<T>): Promise<T> {
    const run = async (): Promise<T> => {
      let planned = write(step);
      for (let attempt = 0; ; attempt++) {
        if ('done' in planned) return planned.done;
        if (attempt >= MAX_WRITE_ATTEMPTS)
          throw new ToolError('transient', 'the task kept changing while being written; retry', {
            retryable: true,
          });
        const plan = planned;
        const path = join(tasksDir, plan.name);
        const outcome = await files.write(path, plan.text, !plan.create, (tmp, held) => {
          let installed = false;
          try {
            return transact((): { value: T } | { done: T } | { again: Step<T> } => {
              const now = step();
              if ('done' in now) return { done: now.done };
              if (now.name !== plan.name || now.text !== plan.text || now.create !== plan.create)
                return { again: now };
              if (!installTemp(tmp, path, now.create ? 'create' : 'replace')) {
                // Only a create: the name is taken by a file nobody has indexed yet (dropped in by hand).
                now.taken?.();
                return { again: step() };
              }
              installed = true;
              return { value: now.commit() };
            });
          } finally {
            if (!installed) removeTemp(tmp);
            releaseOld(held);
          }
        });
        const { result, announced } = outcome;
        if ('again' in result) {
          publish(announced);
          planned = result.again;
          continue;
        }
        if ('done' in result) {
          publish(announced);
          return result.done;
        }
        publish(announced);
        return result.value;
      }
    };
    return key === null ? run() : queue.run(key, run);
  }

  function announce(
    e: TaskUpdatedEvent,
    historyType: EventRow['type'] | null,
    extra: { reason?: string | null; detail?: unknown } = {},
  ) {
    outbox.push(e);
    const id = e.task_id === null ? null : parseTaskId(e.task_id);
    if (historyType !== null && id !== null)
      store.insertEvent({
        task_id: id,
        type: historyType,
        from_status: e.old_status,
        to_status: e.new_status,
        agent_session: e.agent_session,
        source: e.source,
        reason: extra.reason ?? null,
        version: e.version,
        detail: extra.detail === undefined ? null : JSON.stringify(extra.detail),
      });
  }

  function readText(name: string): string | null {
    try {
      return readFileSync(join(tasksDir, name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  function fileExists(name: string): boolean {
    return readText(name) !== null;
  }

  // -------------------------------------------------------------------------------------------------
  // Indexing files (inside a write transaction)

  type IndexOutcome = 'added' | 'updated' | 'unchanged' | 'error';

  /** Brings the index in line with one file's current text. */
  function indexText(
    name: string,
    text: string,
    opts: { quiet?: boolean; exists?: (n: string) => boolean } = {},
  ): IndexOutcome {
    const hash = contentHash(text);
    const before = store.getByPath(name);
    if (before?.content_hash === hash) return 'unchanged';
    const parsed = parseTask(text, name);
    const exists = opts.exists ?? fileExists;
    let reason: string | null = parsed.ok ? null : parsed.reason;
    if (parsed.ok) {
      const other = store.get(parsed.doc.fields.id);
      if (other !== undefined && other.path !== name && exists(other.path))
        reason = `id ${taskKey(parsed.doc.fields.id)} is already used by ${repoPath(other.path)}; renumber one of the two files`;
    }
    if (reason !== null || !parsed.ok) {
      store.setParseError(name, reason ?? 'does not parse', hash);
      if (before !== undefined) {
        // The last good state would mislead: the board shows the file's problem instead (parse_errors).
        store.remove(before.id);
        if (!opts.quiet)
          announce(
            {
              task_id: taskKey(before.id),
              change: 'file',
              old_status: before.status,
              new_status: null,
              agent_session: before.agent_session,
              source: 'file',
              version: before.version,
            },
            'file',
            { reason: 'the file no longer parses', detail: { parse_error: reason } },
          );
      }
      log.warn({ path: repoPath(name), reason }, 'task file does not parse; reported, left as is');
      return 'error';
    }
    const { fields } = parsed.doc;
    if (before !== undefined && before.id !== fields.id) store.remove(before.id);
    store.upsert(fields, name, text.slice(parsed.doc.bodyStart), hash);
    store.clearParseError(name);
    if (!opts.quiet)
      announce(
        {
          task_id: taskKey(fields.id),
          change: 'file',
          old_status: before?.status ?? null,
          new_status: fields.status,
          agent_session: fields.agent_session,
          source: 'file',
          version: fields.version,
        },
        before === undefined ? 'created' : before.status !== fields.status ? 'status' : 'file',
        { detail: { path: repoPath(name) } },
      );
    return before === undefined ? 'added' : 'updated';
  }

  function dropMissing(row: { id: number; path: string }, quiet = false): void {
    const before = store.get(row.id);
    store.remove(row.id);
    if (!quiet && before !== undefined)
      announce(
        {
          task_id: taskKey(row.id),
          change: 'deleted',
          old_status: before.status,
          new_status: null,
          agent_session: before.agent_session,
          source: 'file',
          version: before.version,
        },
        'deleted',
        { detail: { path: repoPath(row.path) } },
      );
  }

  /** Re-reads one file (by name inside the tasks directory) and syncs the index. */
  function syncName(name: string): IndexOutcome | 'removed' {
    const text = readText(name);
    if (text === null) {
      store.clearParseError(name);
      const row = store.getByPath(name);
      if (row === undefined) return 'unchanged';
      dropMissing(row);
      return 'removed';
    }
    const known = store.parseErrors().find((e) => e.path === name);
    if (known !== undefined && known.content_hash === contentHash(text)) return 'error';
    return indexText(name, text);
  }

  const isTaskFileName = (name: string) =>
    name.startsWith('TASK-') && name.endsWith('.md') && !isTempName(name);

  function listTaskFiles(): string[] {
    mkdirSync(tasksDir, { recursive: true });
    return readdirSync(tasksDir).filter(isTaskFileName);
  }

  /** Repairs the index from the files: the files win. */
  /** File stamps (mtime and size) seen by the last reconciliation, so periodic rescans read only what changed. */
  const stamps = new Map<string, string>();

  /**
   * Repairs the index from the files: the files win. `quick` (the periodic safety-net rescan) skips files
   * whose mtime and size are what the last pass saw; start-up reads and hashes every file.
   */
  function reconcile(mode: 'full' | 'quick' = 'full'): ReconcileReport {
    const names = listTaskFiles();
    // Lower ids first, so when two files claim one id the outcome does not depend on readdir order.
    const byId = (n: string) => Number(/^TASK-(\d+)/.exec(n)?.[1] ?? Number.MAX_SAFE_INTEGER);
    names.sort((a, b) => byId(a) - byId(b) || (a < b ? -1 : 1));
    const present = new Set<string>();
    const texts = new Map<string, string>();
    const seen = new Map<string, string>();
    for (const n of names) {
      let stamp: string;
      try {
        const st = statSync(join(tasksDir, n));
        stamp = `${st.mtimeMs}:${st.size}`;
      } catch {
        continue; // deleted since readdir
      }
      present.add(n);
      seen.set(n, stamp);
      if (mode === 'quick' && stamps.get(n) === stamp) continue;
      const t = readText(n);
      if (t !== null) texts.set(n, t);
    }
    const report: ReconcileReport = {
      files: present.size,
      added: 0,
      updated: 0,
      unchanged: 0,
      removed: 0,
      parse_errors: 0,
    };
    write(() => {
      const quiet = store.total() === 0;
      report.unchanged = present.size - texts.size;
      const exists = (n: string) => present.has(n);
      // Rows whose file is gone go first, so a renamed file can take over its id.
      for (const row of store.files()) {
        if (!present.has(row.path)) {
          dropMissing(row, quiet);
          report.removed++;
        }
      }
      const errors = new Map(store.parseErrors().map((e) => [e.path, e.content_hash]));
      for (const [path] of errors) if (!present.has(path)) store.clearParseError(path);
      let maxOnDisk = 0;
      for (const [name, text] of texts) {
        if (errors.get(name) === contentHash(text)) {
          report.parse_errors++;
          continue;
        }
        const outcome = indexText(name, text, { quiet, exists });
        if (outcome === 'error') report.parse_errors++;
        else report[outcome]++;
      }
      // Ids of files that do not parse are taken too: a new task must not reuse a broken file's number.
      for (const name of present)
        maxOnDisk = Math.max(maxOnDisk, byId(name) === Number.MAX_SAFE_INTEGER ? 0 : byId(name));
      store.raiseCounter(maxOnDisk + 1);
    });
    stamps.clear();
    for (const [n, stamp] of seen) stamps.set(n, stamp);
    const changed = report.added + report.updated + report.removed > 0;
    if (mode === 'full' || changed) log.info(report, 'task board reconciled with its files');
    return report;
  }

  // -------------------------------------------------------------------------------------------------
  // Watching

  function scheduleFlush(): void {
    if (closed) return;
    if (pending.size === 1 || firstPending === 0) firstPending = Date.now();
    if (flushTimer) clearTimeout(flushTimer);
    // Debounced, but never starved: a long git checkout is flushed at least once a second.
    const wait = Date.now() - firstPending > 1000 ? 0 : debounceMs;
    flushTimer = setTimeout(flushPending, wait);
  }

  function flushPending(): void {
    flushTimer = null;
    firstPending = 0;
    if (pending.size === 0) return;
    const names = [...pending];
    pending.clear();
    try {
      write(() => {
        for (const n of names) syncName(n);
      });
    } catch (err) {
      log.error({ err }, 'task board could not re-read changed files; a later rescan will retry');
      if (err instanceof ToolError && err.category === 'transient') {
        for (const n of names) pending.add(n);
        scheduleFlush();
      }
    }
  }

  function startWatching(): void {
    try {
      watcher = watch(tasksDir, { persistent: false }, (_event, filename) => {
        if (filename === null) {
          safeRescan();
          return;
        }
        const name = filename.toString();
        if (!isTaskFileName(name)) return;
        pending.add(name);
        scheduleFlush();
      });
      watcher.on('error', (err) => {
        log.warn({ err }, 'task directory watcher failed; falling back to periodic rescans');
        watcher?.close();
        watcher = null;
        if (rescanTimer === null) rescanTimer = setInterval(safeRescan, 2000).unref();
      });
    } catch (err) {
      log.warn({ err }, 'cannot watch the task directory; falling back to periodic rescans');
      rescanTimer = setInterval(safeRescan, 2000).unref();
    }
    if (rescanMs > 0 && rescanTimer === null) rescanTimer = setInterval(safeRescan, rescanMs).unref();
  }

  function safeRescan(): void {
    if (closed) return;
    try {
      reconcile('quick');
    } catch (err) {
      log.error({ err }, 'task board rescan failed; the next one will retry');
    }
  }

  /** Processes changed files now instead of after the debounce (tests, and before a consistency check). */
  function flushWatcher(): void {
    if (flushTimer) clearTimeout(flushTimer);
    flushPending();
  }

  // -------------------------------------------------------------------------------------------------
  // Reading and writing one task

  function notFound(id: number): ToolError {
    return new ToolError(
      'not_found',
      `${taskKey(id)} does not exist; cos_task_board or cos_task_search lists the tasks there are`,
    );
  }

  function requireId(value: string): number {
    const id = parseTaskId(value);
    if (id === null) throw new ToolError('validation', `"${value}" is not a task id; pass one like TASK-12`);
    return id;
  }

  interface Loaded {
    id: number;
    name: string;
    doc: TaskDocument;
  }

  /** The task's file, read now (the truth), with the index synced to it first if someone edited it. */
  function load(id: number): Loaded {
    let name = store.get(id)?.path;
    if (name === undefined) {
      // Perhaps created by hand a moment ago and not seen by the watcher yet.
      name = listTaskFiles().find((n) => TASK_FILE_RE.exec(n)?.[1] === String(id));
      if (name === undefined) throw notFound(id);
    }
    const text = readText(name);
    if (text === null) {
      const row = store.get(id);
      if (row !== undefined) dropMissing(row);
      throw notFound(id);
    }
    const outcome = indexText(name, text);
    if (outcome === 'error') {
      const reason = store.parseErrors().find((e) => e.path === name)?.reason ?? 'does not parse';
      throw new ToolError(
        'validation',
        `${taskKey(id)}'s file ${repoPath(name)} does not parse (${reason}); fix the file by hand — the hub never rewrites a file it cannot read`,
      );
    }
    const parsed = parseTask(text, name);
    if (!parsed.ok) throw new Error('unreachable: indexed file does not parse');
    return { id, name, doc: parsed.doc };
  }

  function checkVersion(doc: TaskDocument, expected: number | undefined): void {
    if (expected !== undefined && expected !== doc.fields.version)
      throw new ToolError(
        'validation',
        `${taskKey(doc.fields.id)} is at version ${doc.fields.version}, not ${expected}: someone changed it since you read it; read it again (cos_task_show) and retry with expected_version ${doc.fields.version}`,
      );
  }

  function toView(fields: TaskFields, sections: TaskSections, name: string, doc?: TaskDocument): TaskView {
    const card = rowToCardFromFields(fields);
    return {
      ...card,
      created: fields.created,
      started: fields.started,
      completed: fields.completed,
      depends_on: fields.depends_on,
      blocked_by: fields.blocked_by,
      references: fields.references,
      sections,
      path: repoPath(name),
      unknown_keys: doc?.unknownKeys ?? [],
      unknown_sections: doc?.unknownSections ?? [],
    };
  }

  function rowToCardFromFields(f: TaskFields): Omit<TaskCard, 'depends_on'> {
    const card: Omit<TaskCard, 'depends_on'> = {
      id: taskKey(f.id),
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

  /**
   * The plan for rewriting a loaded task's file: the new text, checked to parse, and a commit that indexes
   * it and then runs `then` with the new document (announcing the change, building the answer).
   */
  function rewrite<T>(
    loaded: Loaded,
    fields: TaskFields,
    sections: TaskSections,
    then: (doc: TaskDocument) => T,
  ): FilePlan<T> {
    const text = renderTask(loaded.doc, fields, sections);
    const parsed = parseTask(text, loaded.name);
    if (!parsed.ok) throw new Error(`refusing to write a task file that would not parse: ${parsed.reason}`);
    const doc = parsed.doc;
    return {
      name: loaded.name,
      text,
      create: false,
      commit: () => {
        store.upsert(doc.fields, loaded.name, text.slice(doc.bodyStart), contentHash(text));
        return then(doc);
      },
    };
  }

  function workLogLine(text: string, actor: Actor, now: string): string {
    const who = actor.agentSession ? ` (${actor.agentSession})` : '';
    const [first = '', ...rest] = text.trim().split(/\r?\n/);
    return [`- ${now}${who} ${first}`, ...rest.map((l) => `  ${l}`)].join('\n');
  }

  const appendLog = (sections: TaskSections, line: string): TaskSections => ({
    ...sections,
    work_log: sections.work_log === '' ? line : `${sections.work_log}\n${line}`,
  });

  /**
   * Whether a task may enter `to` under its WIP cap. Refuses (validation) at the cap unless bypass_wip
   * with a reason; a bypass gives the work-log line to add and `record`, which stores it (call it when
   * the change commits).
   */
  function wipGate(
    to: Status,
    opts: { bypass_wip?: boolean | undefined; reason?: string | undefined },
    actor: Actor,
  ): { bypassed: boolean; line: string | null; record: (taskId: number) => void } {
    const none = { bypassed: false, line: null, record: () => {} };
    const cap = settings().wip[to];
    if (cap === undefined) return none;
    const count = store.statusCount(to);
    if (count < cap) return none;
    if (!opts.bypass_wip) {
      const ids = store.statusIds(to, 10).map(taskKey).join(', ');
      throw new ToolError(
        'validation',
        `${to} is at its WIP cap of ${cap} (${count} now: ${ids}); finish or move one of those first, or pass bypass_wip: true with a reason (both are recorded)`,
      );
    }
    const reason = opts.reason?.trim() ?? '';
    if (reason === '')
      throw new ToolError(
        'validation',
        `bypass_wip needs a reason saying why ${to} may go over its WIP cap of ${cap}`,
      );
    return {
      bypassed: true,
      line: `WIP bypass: ${to} at ${count + 1} over cap ${cap}: ${reason}`,
      record: (taskId) => {
        store.insertBypass({
          task_id: taskId,
          column_status: to,
          cap,
          count_before: count,
          reason,
          agent_session: actor.agentSession ?? null,
          source: actor.source,
        });
        log.warn({ task: taskKey(taskId), column: to, cap, count }, 'WIP cap bypassed');
      },
    };
  }

  function normaliseDeps(id: number | null, deps: string[]): string[] {
    const out: string[] = [];
    const missing: string[] = [];
    for (const d of deps) {
      const n = parseTaskId(d);
      if (n === null)
        throw new ToolError('validation', `depends_on entry "${d}" is not a task id; pass ids like TASK-12`);
      if (n === id) throw new ToolError('validation', `${taskKey(n)} cannot depend on itself`);
      if (store.get(n) === undefined) missing.push(taskKey(n));
      if (!out.includes(taskKey(n))) out.push(taskKey(n));
    }
    if (missing.length > 0)
      throw new ToolError(
        'validation',
        `depends_on names tasks that do not exist: ${missing.join(', ')}; create them first or drop them`,
      );
    if (id !== null) {
      // Refuse a cycle: tasks in one would never become claimable.
      const seen = new Set<number>();
      const stack = out.map((k) => Number(k.slice(5)));
      while (stack.length > 0) {
        const cur = stack.pop()!;
        if (cur === id)
          throw new ToolError(
            'validation',
            `depends_on would make a cycle back to ${taskKey(id)}; drop the dependency that closes it`,
          );
        if (seen.has(cur)) continue;
        seen.add(cur);
        for (const d of store.dependencies(cur)) stack.push(d.dep_id);
      }
    }
    return out;
  }

  const cleanList = (xs: string[]) => [...new Set(xs.map((x) => x.trim()).filter((x) => x !== ''))];
  const emptyToNull = (v: string | null | undefined): string | null =>
    v === undefined || v === null || v.trim() === '' ? null : v.trim();

  // -------------------------------------------------------------------------------------------------
  // Operations

  async function create(input: CreateInput, actor: Actor): Promise<TaskChange> {
    const title = input.title.trim();
    if (title === '') throw new ToolError('validation', 'title is empty; give the task a short title');
    const status = input.status ?? 'icebox';
    const now = nowIso();
    const slug = slugify(title);
    /** Allocated once the first step has validated the input; a crash after that leaves a gap. */
    let id = 0;
    // No queue: ids come from the index's counter, so concurrent creates never share one.
    return durableChange(null, () => {
      const labels = cleanList([...(input.labels ?? []), ...(input.ready ? [READY_LABEL] : [])]);
      const deps = normaliseDeps(null, input.depends_on ?? []);
      const gate = status === 'emergency' ? wipGate(status, input, actor) : null;
      if (id === 0) id = store.allocateId();
      const taskId = id;
      const name = taskFileName(taskId, slug);
      const fields: TaskFields = {
        id: taskId,
        title,
        status,
        kind: input.kind ?? 'feature',
        priority: input.priority ?? 'P2',
        appetite: emptyToNull(input.appetite),
        swimlane: emptyToNull(input.swimlane),
        epic: emptyToNull(input.epic),
        labels,
        created: now,
        started: null,
        completed: null,
        agent_session: actor.agentSession ?? null,
        depends_on: deps,
        blocked_by: cleanList(input.blocked_by ?? []),
        references: cleanList(input.references ?? []),
        version: 1,
      };
      let sections: TaskSections = {
        outcome: input.outcome?.trim() ?? '',
        read_first: input.read_first?.trim() ?? '',
        acceptance: input.acceptance?.trim() ?? '',
        work_log: '',
      };
      if (gate?.line) sections = appendLog(sections, workLogLine(gate.line, actor, now));
      const text = renderNewTask(fields, sections);
      const parsed = parseTask(text, name);
      if (!parsed.ok) throw new Error(`refusing to write a task file that would not parse: ${parsed.reason}`);
      return {
        name,
        text,
        create: true,
        // A file by that name exists without being indexed yet (dropped in by hand): take the next id.
        taken: () => {
          id = store.allocateId();
        },
        commit: () => {
          gate?.record(taskId);
          store.upsert(fields, name, text.slice(parsed.doc.bodyStart), contentHash(text));
          announce(
            {
              task_id: taskKey(taskId),
              change: 'created',
              old_status: null,
              new_status: status,
              agent_session: actor.agentSession ?? null,
              source: actor.source,
              version: 1,
            },
            'created',
            { reason: input.reason ?? null, detail: gate?.bypassed ? { wip_bypassed: true } : undefined },
          );
          return {
            task: toView(fields, sections, name, parsed.doc),
            old_status: null,
            new_status: status,
            changed: [],
            wip_bypassed: gate?.bypassed ?? false,
          };
        },
      };
    });
  }

  function show(idText: string): TaskView {
    const id = requireId(idText);
    // The common case needs no write lock: the file is what the index last saw.
    const row = store.get(id);
    const text = row === undefined ? null : readText(row.path);
    if (row !== undefined && text !== null && contentHash(text) === row.content_hash) {
      const parsed = parseTask(text, row.path);
      if (parsed.ok) return toView(parsed.doc.fields, parsed.doc.sections, row.path, parsed.doc);
    }
    return write(() => {
      const l = load(id);
      return toView(l.doc.fields, l.doc.sections, l.name, l.doc);
    });
  }

  function applyMove(
    l: Loaded,
    to: Status,
    opts: MoveOptions,
    actor: Actor,
    claimed: boolean,
    now: string,
  ): FilePlan<TaskChange> {
    const from = l.doc.fields.status;
    if (from === to || !canTransition(from, to)) {
      throw new ToolError(
        'validation',
        `${taskKey(l.id)} cannot move from ${from} to ${to}; allowed from ${from}: ${TRANSITIONS[from].join(', ')}`,
      );
    }
    const gate = wipGate(to, opts, actor);
    const f = l.doc.fields;
    const fields: TaskFields = {
      ...f,
      status: to,
      started: to === 'in_progress' && f.started === null ? now : f.started,
      completed: to === 'complete' ? now : to === 'archive' ? f.completed : null,
      agent_session: to === 'in_progress' && actor.agentSession ? actor.agentSession : f.agent_session,
      version: f.version + 1,
    };
    let sections = l.doc.sections;
    const reason = opts.reason?.trim() || null;
    if (reason !== null || gate.line !== null) {
      const parts = [`${from} → ${to}${reason ? `: ${reason}` : ''}`];
      if (gate.line) parts.push(gate.line);
      sections = appendLog(sections, workLogLine(parts.join('; '), actor, now));
    }
    return rewrite(l, fields, sections, (doc) => {
      gate.record(l.id);
      announce(
        {
          task_id: taskKey(l.id),
          change: claimed ? 'claimed' : 'moved',
          old_status: from,
          new_status: to,
          agent_session: actor.agentSession ?? fields.agent_session,
          source: actor.source,
          version: fields.version,
        },
        'status',
        {
          reason,
          detail: { ...(claimed ? { claimed: true } : {}), ...(gate.bypassed ? { wip_bypassed: true } : {}) },
        },
      );
      return {
        task: toView(doc.fields, doc.sections, l.name, doc),
        old_status: from,
        new_status: to,
        changed: ['status'],
        wip_bypassed: gate.bypassed,
      };
    });
  }

  const taskQueueKey = (id: number) => `task:${id}`;

  async function move(idText: string, to: Status, opts: MoveOptions, actor: Actor): Promise<TaskChange> {
    const id = requireId(idText);
    const now = nowIso();
    return durableChange(taskQueueKey(id), () => {
      const l = load(id);
      checkVersion(l.doc, opts.expected_version);
      return applyMove(l, to, opts, actor, false, now);
    });
  }

  async function edit(
    idText: string,
    patch: EditPatch,
    opts: WriteOptions,
    actor: Actor,
  ): Promise<TaskChange> {
    const id = requireId(idText);
    return durableChange(taskQueueKey(id), (): Step<TaskChange> => {
      const l = load(id);
      checkVersion(l.doc, opts.expected_version);
      const f = l.doc.fields;
      const next: TaskFields = { ...f };
      if (patch.title !== undefined) {
        if (patch.title.trim() === '') throw new ToolError('validation', 'title cannot be empty');
        next.title = patch.title.trim();
      }
      if (patch.kind !== undefined) next.kind = patch.kind;
      if (patch.priority !== undefined) next.priority = patch.priority;
      if (patch.appetite !== undefined) next.appetite = emptyToNull(patch.appetite);
      if (patch.swimlane !== undefined) next.swimlane = emptyToNull(patch.swimlane);
      if (patch.epic !== undefined) next.epic = emptyToNull(patch.epic);
      if (patch.agent_session !== undefined) next.agent_session = emptyToNull(patch.agent_session);
      let labels = patch.labels !== undefined ? cleanList(patch.labels) : [...f.labels];
      if (patch.add_labels) labels = cleanList([...labels, ...patch.add_labels]);
      if (patch.remove_labels) labels = labels.filter((x) => !patch.remove_labels?.includes(x));
      next.labels = labels;
      if (patch.depends_on !== undefined) next.depends_on = normaliseDeps(id, patch.depends_on);
      if (patch.blocked_by !== undefined) next.blocked_by = cleanList(patch.blocked_by);
      if (patch.references !== undefined) next.references = cleanList(patch.references);
      const sections: TaskSections = { ...l.doc.sections };
      if (patch.outcome !== undefined) sections.outcome = patch.outcome.trim();
      if (patch.read_first !== undefined) sections.read_first = patch.read_first.trim();
      if (patch.acceptance !== undefined) sections.acceptance = patch.acceptance.trim();
      const changed: string[] = [];
      for (const k of Object.keys(next) as (keyof TaskFields)[]) {
        if (JSON.stringify(next[k]) !== JSON.stringify(f[k])) changed.push(k);
      }
      for (const k of ['outcome', 'read_first', 'acceptance'] as const)
        if (sections[k] !== l.doc.sections[k]) changed.push(k);
      if (changed.length === 0)
        return {
          done: {
            task: toView(f, l.doc.sections, l.name, l.doc),
            old_status: f.status,
            new_status: f.status,
            changed,
            wip_bypassed: false,
          },
        };
      next.version = f.version + 1;
      return rewrite(l, next, sections, (doc) => {
        announce(
          {
            task_id: taskKey(id),
            change: 'edited',
            old_status: f.status,
            new_status: f.status,
            agent_session: actor.agentSession ?? null,
            source: actor.source,
            version: next.version,
          },
          'edit',
          { detail: { changed } },
        );
        return {
          task: toView(doc.fields, doc.sections, l.name, doc),
          old_status: f.status,
          new_status: f.status,
          changed,
          wip_bypassed: false,
        };
      });
    });
  }

  async function appendWorkLog(
    idText: string,
    text: string,
    opts: WriteOptions,
    actor: Actor,
  ): Promise<TaskChange> {
    const id = requireId(idText);
    if (text.trim() === '')
      throw new ToolError('validation', 'text is empty; say what was done, found or decided');
    const line = workLogLine(text, actor, nowIso());
    return durableChange(taskQueueKey(id), () => {
      const l = load(id);
      checkVersion(l.doc, opts.expected_version);
      const f = l.doc.fields;
      const fields = { ...f, version: f.version + 1 };
      return rewrite(l, fields, appendLog(l.doc.sections, line), (doc) => {
        announce(
          {
            task_id: taskKey(id),
            change: 'work_log',
            old_status: f.status,
            new_status: f.status,
            agent_session: actor.agentSession ?? null,
            source: actor.source,
            version: fields.version,
          },
          'work_log',
          { detail: { text: text.trim() } },
        );
        return {
          task: toView(doc.fields, doc.sections, l.name, doc),
          old_status: f.status,
          new_status: f.status,
          changed: ['work_log'],
          wip_bypassed: false,
        };
      });
    });
  }

  async function claimNext(
    actor: Actor,
    opts: {
      swimlane?: string | undefined;
      bypass_wip?: boolean | undefined;
      reason?: string | undefined;
    } = {},
  ): Promise<ClaimResult> {
    if (!actor.agentSession)
      throw new ToolError(
        'validation',
        'agent_session is required to claim a task: pass the calling agent session id',
      );
    const agentSession = actor.agentSession;
    const now = nowIso();
    // One claim at a time in this process, so parallel claims do not all pick the same first task.
    return durableChange('claim', (): Step<ClaimResult> => {
      for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
        const row = store.claimNext(opts.swimlane ?? null);
        if (row === undefined)
          return {
            done: {
              claimed: false,
              task: null,
              message:
                'no ready task with all dependencies complete; label a task "ready" (cos_task_edit add_labels) to queue it',
            },
          };
        const text = readText(row.path);
        if (text === null || contentHash(text) !== row.content_hash) {
          // Changed or deleted by hand since it was indexed: resync, then choose again with fresh facts.
          if (text === null) dropMissing(row);
          else indexText(row.path, text);
          continue;
        }
        const l = load(row.id);
        const reason = opts.bypass_wip ? opts.reason : 'claimed';
        const plan = applyMove(l, 'in_progress', { reason, bypass_wip: opts.bypass_wip }, actor, true, now);
        return {
          ...plan,
          commit: (): ClaimResult => {
            const change = plan.commit();
            return {
              claimed: true,
              task: change.task,
              message: `${change.task.id} is now in_progress for ${agentSession}`,
            };
          },
        };
      }
      throw new ToolError('transient', 'the board kept changing while choosing a task; retry', {
        retryable: true,
      });
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
      wip: wipColumns(),
      parse_errors: errors.slice(0, 20).map((e) => ({ path: repoPath(e.path), reason: e.reason })),
      parse_error_count: errors.length,
    };
  }

  function wipColumns(): WipColumn[] {
    const caps = settings().wip;
    return (Object.entries(caps) as [Status, number][]).map(([status, cap]) => {
      const count = store.statusCount(status);
      return {
        status,
        count,
        cap,
        at_cap: count >= cap,
        over_cap: count > cap,
        task_ids: store.statusIds(status, 20).map(taskKey),
      };
    });
  }

  function wipCheck() {
    const columns = wipColumns();
    return {
      columns,
      violations: columns
        .filter((c) => c.over_cap)
        .map((c) => ({ status: c.status, count: c.count, cap: c.cap })),
      recent_bypasses: store.recentBypasses(10).map((b) => ({
        task_id: taskKey(b.task_id as number),
        at: b.at as string,
        status: b.column_status as Status,
        cap: b.cap as number,
        count_before: b.count_before as number,
        reason: b.reason as string,
        agent_session: (b.agent_session as string | null) ?? null,
        source: b.source as ChangeSource,
      })),
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
    const id = requireId(idText);
    const limit = Math.min(Math.max(opts.limit ?? 100, 1), MAX_PAGE);
    const rows = store.events(id, opts.after_seq ?? 0, limit + 1);
    if (rows.length === 0 && store.get(id) === undefined && (opts.after_seq ?? 0) === 0) throw notFound(id);
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
      task_id: taskKey(id),
      events: entries,
      next_after_seq: rows.length > limit && last ? last.seq : null,
    };
  }

  /** Turns free text into an FTS5 query of quoted terms (all must match; the last one as a prefix). */
  function ftsQuery(text: string): string {
    const terms = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (terms.length === 0)
      throw new ToolError(
        'validation',
        'query has no words to search for; pass some words from a title or body',
      );
    return terms
      .slice(0, 32)
      .map((t, i, all) => `"${t}"${i === all.length - 1 ? '*' : ''}`)
      .join(' ');
  }

  function search(
    query: string,
    opts: {
      status?: Status | undefined;
      include_archive?: boolean | undefined;
      limit?: number | undefined;
      offset?: number | undefined;
    } = {},
  ) {
    const limit = Math.min(Math.max(opts.limit ?? 20, 1), MAX_PAGE);
    const offset = Math.max(opts.offset ?? 0, 0);
    const rows = store.search(
      ftsQuery(query),
      opts.status ?? null,
      opts.include_archive ?? opts.status === 'archive',
      limit + 1,
      offset,
    );
    const page = rows.slice(0, limit);
    return {
      results: page.map((r) => ({
        id: taskKey(r.id),
        title: r.title,
        status: r.status,
        kind: r.kind,
        priority: r.priority,
        path: repoPath(r.path),
        // bm25 is lower-is-better; flip it so a bigger score reads as a better match.
        score: Number((-r.score).toPrecision(4)),
        snippet: r.snippet.replace(/\s+/g, ' ').trim(),
      })),
      next_offset: rows.length > limit ? offset + limit : null,
    };
  }

  const depView = (row: TaskRow) => ({
    ...rowToCard(row),
    done: row.status === 'complete' || (row.status === 'archive' && row.completed !== null),
  });

  function dependencies(idText: string) {
    const id = requireId(idText);
    const row = store.get(id);
    if (row === undefined) throw notFound(id);
    const deps = store.dependencies(id);
    const found = deps.filter((d) => d.id !== null && d.id !== undefined).map((d) => depView(d as TaskRow));
    const missing = deps.filter((d) => d.id === null || d.id === undefined).map((d) => taskKey(d.dep_id));
    return {
      task_id: taskKey(id),
      dependencies: found,
      missing,
      all_complete: missing.length === 0 && found.every((d) => d.done),
    };
  }

  function dependents(idText: string) {
    const id = requireId(idText);
    if (store.get(id) === undefined) throw notFound(id);
    return { task_id: taskKey(id), dependents: store.dependents(id).map(rowToCard) };
  }

  function boardConfig() {
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
      tasks_dir: relative(config.repo, tasksDir) || '.',
      priorities: ['P0', 'P1', 'P2', 'P3'],
      ready_label: READY_LABEL,
    };
  }

  return {
    start(): ReconcileReport {
      closed = false;
      files.start();
      const report = reconcile();
      if (options.watch !== false) startWatching();
      return report;
    },
    close(): void {
      closed = true;
      files.close();
      watcher?.close();
      watcher = null;
      if (rescanTimer) clearInterval(rescanTimer);
      rescanTimer = null;
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      pending.clear();
    },
    reconcile,
    flushWatcher,
    board,
    show,
    create,
    move,
    edit,
    appendWorkLog,
    claimNext,
    ready,
    history,
    search,
    dependencies,
    dependents,
    wipCheck,
    config: boardConfig,
    /** The in-progress task an agent session holds (presence shows it), or null. */
    claimedBy: (agentSession: string): { id: string; title: string } | null => {
      const row = claimedStatement.get(agentSession);
      return row ? { id: `TASK-${row.id}`, title: row.title } : null;
    },
    parseErrors: (): ParseErrorView[] =>
      store.parseErrors().map((e) => ({ path: repoPath(e.path), reason: e.reason })),
    settings,
    store,
    /** Repo-relative path of a file in the tasks directory (for messages). */
    repoPath,
  };
}
