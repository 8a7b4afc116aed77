// Reconciliation with the files: the files are the truth and the index follows them. One file at a time
// (a watcher event, a task about to be changed) or the whole directory (start-up, the periodic safety
// net). Everything here runs inside a write transaction, and a file that does not parse is reported
// (parse_errors, cos doctor), never rewritten.
import type { Logger } from 'pino';
import { ToolError } from '../errors.ts';
import { taskNotFound } from './ids.ts';
import { fileNameKey, taskKey } from './model.ts';
import type { BoardStore, TaskRow } from './store.ts';
import { contentHash, type ParseResult, type TaskDocument, withVersion } from './task-file.ts';
import type { TasksDir } from './tasks-dir.ts';
import type { WritePath } from './write-path.ts';

export interface ReconcileReport {
  /** Task files in the directory, broken ones included (not_tasks are not counted). */
  files: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  parse_errors: number;
  /** Markdown files with no front matter and no id in their names (a README): not tasks, not errors. */
  not_tasks: number;
}

/** A task's file as read just now, with the index in line with it. */
export interface Loaded {
  id: number;
  name: string;
  doc: TaskDocument;
}

/**
 * The document as the board shows it: the file's, with its index version, and in a team the newer
 * record's status, holder and version over it (the file's own fields kept for rewrites to compare with).
 */
export function shownDoc(doc: TaskDocument, row: TaskRow): TaskDocument {
  const own = withVersion(doc, row.file_version ?? row.version);
  if (row.file_version === null) return own;
  return {
    ...own,
    fields: { ...own.fields, status: row.status, agent_session: row.agent_session, version: row.version },
    fileFields: own.fields,
  };
}

type IndexOutcome = 'added' | 'updated' | 'unchanged' | 'error' | 'not_task';

export interface ReconcilerOptions {
  store: BoardStore;
  dir: TasksDir;
  writes: WritePath;
  parseTask: (text: string, fileName: string) => ParseResult;
  log: Logger;
}

export type Reconciler = ReturnType<typeof createReconciler>;

export function createReconciler({ store, dir, writes, parseTask, log }: ReconcilerOptions) {
  const { announce } = writes;
  /** File stamps (mtime and size) seen by the last reconciliation, so periodic rescans read only what changed. */
  const stamps = new Map<string, string>();
  /** Markdown files that are not tasks (a README), as the last passes saw them. */
  const notTasks = new Set<string>();

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
    if (!parsed.ok && parsed.notTask && before === undefined) {
      // A README beside the tasks: not a task, not broken; the doctor lists it for what it is.
      store.clearParseError(name);
      return 'not_task';
    }
    const exists = opts.exists ?? dir.exists;
    let reason: string | null = parsed.ok ? null : parsed.reason;
    if (parsed.ok) {
      const other = store.get(parsed.doc.fields.id);
      if (other !== undefined && other.path !== name && exists(other.path))
        reason = `id ${parsed.doc.fields.key} is already used by ${dir.repoPath(other.path)}${other.key === parsed.doc.fields.key ? '' : ` (as ${other.key}: the same number)`}; renumber one of the two files`;
    }
    if (reason !== null || !parsed.ok) {
      store.setParseError(name, reason ?? 'does not parse', hash);
      if (before !== undefined) {
        // The last good state would mislead: the board shows the file's problem instead (parse_errors).
        store.remove(before.id);
        if (!opts.quiet)
          announce(
            before.id,
            {
              task_id: before.key,
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
      log.warn({ path: dir.repoPath(name), reason }, 'task file does not parse; reported, left as is');
      return 'error';
    }
    // A task whose `version` line is another tool's keeps the hub's version in the index: a change made
    // to the file by hand counts as one more version, as it does for the hub's own files.
    const fields = parsed.doc.ownsVersion
      ? parsed.doc.fields
      : {
          ...parsed.doc.fields,
          version:
            before !== undefined && before.id === parsed.doc.fields.id
              ? store.fileState(before).version + 1
              : 1,
        };
    if (before !== undefined && before.id !== fields.id) store.remove(before.id);
    store.upsert(fields, name, text.slice(parsed.doc.bodyStart), hash);
    store.clearParseError(name);
    // In a team the row may show a newer record than the file: the change is what the board now shows.
    const shown = store.teamOverlay ? store.get(fields.id) : undefined;
    const status = shown?.status ?? fields.status;
    if (!opts.quiet)
      announce(
        fields.id,
        {
          task_id: fields.key,
          change: 'file',
          old_status: before?.status ?? null,
          new_status: status,
          agent_session: shown ? shown.agent_session : fields.agent_session,
          source: 'file',
          version: shown?.version ?? fields.version,
        },
        before === undefined ? 'created' : before.status !== status ? 'status' : 'file',
        { detail: { path: dir.repoPath(name) } },
      );
    return before === undefined ? 'added' : 'updated';
  }

  /** Drops the index row of a task whose file is gone. */
  function dropMissing(row: { id: number; path: string }, quiet = false): void {
    const before = store.get(row.id);
    store.remove(row.id);
    if (!quiet && before !== undefined)
      announce(
        row.id,
        {
          task_id: before.key,
          change: 'deleted',
          old_status: before.status,
          new_status: null,
          agent_session: before.agent_session,
          source: 'file',
          version: before.version,
        },
        'deleted',
        { detail: { path: dir.repoPath(row.path) } },
      );
  }

  /** Re-reads one file (by name inside the tasks directory) and syncs the index. */
  function syncName(name: string): IndexOutcome | 'removed' {
    const text = dir.read(name);
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

  /**
   * Repairs the index from the files: the files win. `quick` (the periodic safety-net rescan) skips files
   * whose mtime and size are what the last pass saw; start-up reads and hashes every file.
   */
  function reconcile(mode: 'full' | 'quick' = 'full'): ReconcileReport {
    const names = dir.list();
    // Lower ids first, so when two files claim one id the outcome does not depend on readdir order.
    const byId = (n: string) => fileNameKey(n)?.n ?? Number.MAX_SAFE_INTEGER;
    names.sort((a, b) => byId(a) - byId(b) || (a < b ? -1 : 1));
    const present = new Set<string>();
    const texts = new Map<string, string>();
    const seen = new Map<string, string>();
    for (const n of names) {
      // Deleted since readdir, or a symlink (never read): not a task file of this board.
      const st = dir.stat(n);
      if (st === undefined) continue;
      const stamp = `${st.mtimeMs}:${st.size}`;
      present.add(n);
      seen.set(n, stamp);
      if (mode === 'quick' && stamps.get(n) === stamp) continue;
      const t = dir.read(n);
      if (t !== null) texts.set(n, t);
    }
    const report: ReconcileReport = {
      files: present.size,
      added: 0,
      updated: 0,
      unchanged: 0,
      removed: 0,
      parse_errors: 0,
      not_tasks: 0,
    };
    writes.write(() => {
      const quiet = store.total() === 0;
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
        if (outcome === 'not_task') notTasks.add(name);
        else notTasks.delete(name);
        if (outcome === 'error') report.parse_errors++;
        else if (outcome !== 'not_task') report[outcome]++;
      }
      for (const name of notTasks) if (!present.has(name)) notTasks.delete(name);
      report.not_tasks = notTasks.size;
      report.files = present.size - notTasks.size;
      report.unchanged = [...present].filter((n) => !texts.has(n) && !notTasks.has(n)).length;
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

  /** The task's file, read now (the truth), with the index synced to it first if someone edited it. */
  function load(id: number): Loaded {
    let name = store.get(id)?.path;
    if (name === undefined) {
      // Perhaps created by hand a moment ago and not seen by the watcher yet.
      name = dir.list().find((n) => fileNameKey(n)?.n === id);
      if (name === undefined) throw taskNotFound(id);
    }
    const text = dir.read(name);
    if (text === null) {
      const row = store.get(id);
      if (row !== undefined) dropMissing(row);
      throw taskNotFound(id);
    }
    const outcome = indexText(name, text);
    if (outcome === 'error' || outcome === 'not_task') {
      const reason = store.parseErrors().find((e) => e.path === name)?.reason ?? 'does not parse';
      throw new ToolError(
        'validation',
        `${fileNameKey(name)?.key ?? taskKey(id)}'s file ${dir.repoPath(name)} does not parse (${reason}); fix the file by hand — the hub never rewrites a file it cannot read`,
      );
    }
    const parsed = parseTask(text, name);
    if (!parsed.ok) throw new Error('unreachable: indexed file does not parse');
    const row = store.get(id);
    if (row === undefined) throw taskNotFound(id);
    return { id, name, doc: shownDoc(parsed.doc, row) };
  }

  return { indexText, dropMissing, syncName, reconcile, load };
}
