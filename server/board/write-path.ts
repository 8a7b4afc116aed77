// The durable write path: every change to the board goes through here. A change writes the task file
// first (a temp file fsynced off the event loop, then a rename) and then the index, the rename and the
// index update inside one IMMEDIATE transaction that re-checks the change (durableChange): the write lock
// is the mutex that makes claim-next, id allocation and version checks atomic across connections and
// processes, and a crash between the two steps leaves a file that reconciliation re-reads at start.
// Events wait in an outbox until their transaction commits, so a rolled-back change is never announced.
import { join } from 'node:path';
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { KeyedQueue } from '../keyed-queue.ts';
import { installTemp, releaseOld, removeTemp } from './atomic-write.ts';
import type { FileWriter } from './file-writer.ts';
import type { Actor, ChangeSource, Status, TaskFields, TaskSections } from './model.ts';
import type { BoardStore, EventRow } from './store.ts';
import { contentHash, type ParseResult, renderTask, type TaskDocument, withVersion } from './task-file.ts';

export interface TaskUpdatedEvent {
  /** Null only for a `bulk` change. */
  task_id: string | null;
  /** `bulk`: many files changed at once (a git checkout); `task_ids` lists them, refetch the board. */
  change:
    | 'created'
    | 'moved'
    | 'edited'
    | 'work_log'
    | 'claimed'
    | 'handed_off'
    | 'file'
    | 'deleted'
    | 'bulk';
  old_status: Status | null;
  new_status: Status | null;
  agent_session: string | null;
  source: ChangeSource;
  version: number | null;
  task_ids?: string[];
  /** In a team: the machine whose hub made the change (absent without a team). */
  machine?: string;
}

/** A task's state as the team's record of it holds it (server/board/team-board.ts). */
export interface RecordState {
  status: Status;
  agent_session: string | null;
  version: number;
}

/** What a change does to the task's team record: from what this hub believes it is, to what it becomes. */
export interface RecordChange {
  id: number;
  title: string;
  /** null: a new task. */
  from: RecordState | null;
  to: RecordState;
}

export interface WriteOptions {
  /** The version the caller last read; a different current version refuses the write. */
  expected_version?: number | undefined;
}

/** What a change would write: one task file, and the index update that goes with it. */
export interface FilePlan<T> {
  /** File name inside the tasks directory. */
  name: string;
  text: string;
  /** true: a new file, which must not exist yet; false: replaces the file. */
  create: boolean;
  /** Updates the index and announces the change, in the transaction that installs the file. */
  commit: () => T;
  /** For `create`: the name turned out to be taken; choose another before the step runs again. */
  taken?: () => void;
  /** What the change does to the task's team record (a hub in a team writes it there first). */
  record?: RecordChange;
}

/** The outcome of one run of a change's decision step: nothing to write (`done`), or a file to write. */
export type Step<T> = { done: T } | FilePlan<T>;

/**
 * How a change of one task is written: through writes.durableChange alone, or in a team through the
 * team's record first (team-board.ts). `actor` says where it came from.
 */
export type TaskChangeFn = <T>(id: number, step: () => Step<T>, actor: Actor) => Promise<T>;

/** Tries of a durable change whose file another writer kept changing under it (see durableChange). */
const MAX_WRITE_ATTEMPTS = 20;
/** More changes than this in one transaction are announced as one `bulk` event. */
const BULK_EVENT_THRESHOLD = 100;

export const nowIso = () => new Date().toISOString();

/** The in-process queue key of changes to one task. */
export const taskQueueKey = (id: number) => `task:${id}`;

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

/** Refuses a write made against a version the task has left (optimistic concurrency). */
export function checkVersion(doc: TaskDocument, expected: number | undefined): void {
  if (expected !== undefined && expected !== doc.fields.version)
    throw new ToolError(
      'validation',
      `${doc.fields.key} is at version ${doc.fields.version}, not ${expected}: someone changed it since you read it; read it again (cos_task_show) and retry with expected_version ${doc.fields.version}`,
    );
}

export interface WritePathOptions {
  db: Db;
  events: EventBus;
  store: BoardStore;
  /** Writes and fsyncs temp files off the main thread (and fsyncs the directory after the installs). */
  files: FileWriter;
  tasksDir: string;
  parseTask: (text: string, fileName: string) => ParseResult;
  /** In a team: this machine, named in every change the hub announces. */
  machine?: string | undefined;
}

export type WritePath = ReturnType<typeof createWritePath>;

export function createWritePath({
  db,
  events,
  store,
  files,
  tasksDir,
  parseTask,
  machine,
}: WritePathOptions) {
  /** Changes to one task (and claims) wait for each other in this process: see durableChange. */
  const queue = new KeyedQueue();
  let outbox: TaskUpdatedEvent[] = [];

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

  /** Queues an event for when the transaction commits, and records it in task `id`'s history. */
  function announce(
    id: number,
    e: TaskUpdatedEvent,
    historyType: EventRow['type'] | null,
    extra: { reason?: string | null; detail?: unknown; at?: string } = {},
  ) {
    const event = machine !== undefined && e.machine === undefined ? { ...e, machine } : e;
    outbox.push(event);
    // In a team the history names the machine too (the Flow page says where each move was made).
    const detail =
      event.machine === undefined
        ? extra.detail
        : { ...(extra.detail as Record<string, unknown> | undefined), machine: event.machine };
    if (historyType !== null)
      store.insertEvent({
        task_id: id,
        type: historyType,
        from_status: e.old_status,
        to_status: e.new_status,
        agent_session: e.agent_session,
        source: e.source,
        reason: extra.reason ?? null,
        version: e.version,
        detail: detail === undefined ? null : JSON.stringify(detail),
        at: extra.at,
      });
  }

  /**
   * The plan for rewriting a loaded task's file: the new text, checked to parse, and a commit that indexes
   * it and then runs `then` with the new document (announcing the change, building the answer).
   */
  function rewrite<T>(
    loaded: { name: string; doc: TaskDocument },
    fields: TaskFields,
    sections: TaskSections,
    then: (doc: TaskDocument) => T,
  ): FilePlan<T> {
    const text = renderTask(loaded.doc, fields, sections);
    const parsed = parseTask(text, loaded.name);
    if (!parsed.ok) throw new Error(`refusing to write a task file that would not parse: ${parsed.reason}`);
    const doc = withVersion(parsed.doc, fields.version);
    const was = loaded.doc.fields;
    return {
      name: loaded.name,
      text,
      create: false,
      record: {
        id: fields.id,
        title: fields.title,
        from: { status: was.status, agent_session: was.agent_session, version: was.version },
        to: { status: fields.status, agent_session: fields.agent_session, version: fields.version },
      },
      commit: () => {
        store.upsert(doc.fields, loaded.name, text.slice(doc.bodyStart), contentHash(text));
        return then(doc);
      },
    };
  }

  /** The machine whose team record task `id`'s row shows (null without a team): answers carry it. */
  const machineOf = (id: number): string | null =>
    machine === undefined ? null : (store.get(id)?.machine ?? null);

  return { write, durableChange, announce, rewrite, machineOf };
}
