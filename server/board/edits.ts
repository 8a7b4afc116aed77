// Creating a task and changing what it says: its fields and sections (cos_task_edit) and its work log.
// Moves between columns are in transitions.ts.
import { ToolError } from '../errors.ts';
import { requireTaskId } from './ids.ts';
import {
  type Actor,
  formatTaskKey,
  type Kind,
  type Priority,
  parseTaskId,
  READY_LABEL,
  slugify,
  type TaskFields,
  type TaskSections,
} from './model.ts';
import type { Reconciler } from './reconcile.ts';
import { cleanSection } from './section-text.ts';
import type { BoardStore } from './store.ts';
import {
  appendLog,
  contentHash,
  type ParseResult,
  renderNewTask,
  taskFileName,
  workLogLine,
} from './task-file.ts';
import type { TasksDir } from './tasks-dir.ts';
import type { TeamBoard } from './team-board.ts';
import { type TaskChange, toView } from './views.ts';
import type { Wip } from './wip.ts';
import {
  checkVersion,
  type FilePlan,
  nowIso,
  type Step,
  type TaskChangeFn,
  type WriteOptions,
  type WritePath,
} from './write-path.ts';

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

const cleanList = (xs: string[]) => [...new Set(xs.map((x) => x.trim()).filter((x) => x !== ''))];
const emptyToNull = (v: string | null | undefined): string | null =>
  v === undefined || v === null || v.trim() === '' ? null : v.trim();

export interface EditsOptions {
  store: BoardStore;
  dir: TasksDir;
  writes: WritePath;
  reconciler: Reconciler;
  wip: Wip;
  parseTask: (text: string, fileName: string) => ParseResult;
  /** How a change of one task is written (through the team's record first, in a team). */
  change: TaskChangeFn;
  /** In a team: a new task's id is reserved there first, so two machines never create one TASK-n. */
  team?: TeamBoard | undefined;
}

export function createEdits({ store, dir, writes, reconciler, wip, parseTask, change, team }: EditsOptions) {
  const { announce, durableChange, rewrite, machineOf } = writes;

  /** Dependencies as the keys of the tasks they name (`TASK-046` for `46`), checked to exist, no cycle. */
  function normaliseDeps(self: { id: number; key: string } | null, deps: string[]): string[] {
    const id = self?.id ?? null;
    const out: string[] = [];
    const nums: number[] = [];
    const missing: string[] = [];
    for (const d of deps) {
      const n = parseTaskId(d);
      if (n === null)
        throw new ToolError('validation', `depends_on entry "${d}" is not a task id; pass ids like TASK-12`);
      if (n === id) throw new ToolError('validation', `${self?.key ?? d} cannot depend on itself`);
      const row = store.get(n);
      if (row === undefined) missing.push(d.trim());
      else if (!nums.includes(n)) {
        nums.push(n);
        out.push(row.key);
      }
    }
    if (missing.length > 0)
      throw new ToolError(
        'validation',
        `depends_on names tasks that do not exist: ${missing.join(', ')}; create them first or drop them`,
      );
    if (id !== null) {
      // Refuse a cycle: tasks in one would never become claimable.
      const seen = new Set<number>();
      const stack = [...nums];
      while (stack.length > 0) {
        const cur = stack.pop()!;
        if (cur === id)
          throw new ToolError(
            'validation',
            `depends_on would make a cycle back to ${self?.key}; drop the dependency that closes it`,
          );
        if (seen.has(cur)) continue;
        seen.add(cur);
        for (const d of store.dependencies(cur)) stack.push(d.dep_id);
      }
    }
    return out;
  }

  async function create(input: CreateInput, actor: Actor): Promise<TaskChange> {
    const title = input.title.trim();
    if (title === '') throw new ToolError('validation', 'title is empty; give the task a short title');
    const status = input.status ?? 'icebox';
    const now = nowIso();
    const slug = slugify(title);

    /** What the input says, checked against the board as it is now (throws what is wrong with it). */
    const checked = () => {
      const labels = cleanList([...(input.labels ?? []), ...(input.ready ? [READY_LABEL] : [])]);
      const deps = normaliseDeps(null, input.depends_on ?? []);
      const gate = status === 'emergency' ? wip.gate(status, input, actor) : null;
      return { labels, deps, gate };
    };

    /** The new file of task `taskId`; `taken` is told when a file by its name turns out to exist. */
    const plan = (
      taskId: number,
      { labels, deps, gate }: ReturnType<typeof checked>,
      taken: () => void,
    ): FilePlan<TaskChange> => {
      // New tasks follow the board's own spelling: TASK-054 on a board padded to three digits.
      const key = formatTaskKey(taskId, store.padWidth());
      const name = taskFileName(key, slug);
      const fields: TaskFields = {
        id: taskId,
        key,
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
        outcome: cleanSection(input.outcome ?? ''),
        read_first: cleanSection(input.read_first ?? ''),
        acceptance: cleanSection(input.acceptance ?? ''),
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
        taken,
        commit: () => {
          gate?.record(taskId);
          store.upsert(fields, name, text.slice(parsed.doc.bodyStart), contentHash(text));
          announce(
            taskId,
            {
              task_id: key,
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
            task: toView(fields, sections, dir.repoPath(name), parsed.doc, machineOf(taskId)),
            old_status: null,
            new_status: status,
            changed: [],
            wip_bypassed: gate?.bypassed ?? false,
          };
        },
      };
    };

    if (team !== undefined) {
      // The input is checked first, so a refused create takes no id from the team.
      writes.write(checked);
      return team.create(title, status, (taskId) => {
        let taken = false;
        return durableChange<TaskChange | null>(null, () =>
          taken ? { done: null } : plan(taskId, checked(), () => (taken = true)),
        );
      });
    }

    /** Allocated once the first step has validated the input; a crash after that leaves a gap. */
    let id = 0;
    // No queue: ids come from the index's counter, so concurrent creates never share one.
    return durableChange(null, () => {
      const input = checked();
      if (id === 0) id = store.allocateId();
      return plan(id, input, () => {
        id = store.allocateId();
      });
    });
  }

  async function edit(
    idText: string,
    patch: EditPatch,
    opts: WriteOptions,
    actor: Actor,
  ): Promise<TaskChange> {
    const id = requireTaskId(idText);
    return change(
      id,
      (): Step<TaskChange> => {
        const l = reconciler.load(id);
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
        if (patch.depends_on !== undefined) next.depends_on = normaliseDeps(f, patch.depends_on);
        if (patch.blocked_by !== undefined) next.blocked_by = cleanList(patch.blocked_by);
        if (patch.references !== undefined) next.references = cleanList(patch.references);
        const sections: TaskSections = { ...l.doc.sections };
        if (patch.outcome !== undefined) sections.outcome = cleanSection(patch.outcome);
        if (patch.read_first !== undefined) sections.read_first = cleanSection(patch.read_first);
        if (patch.acceptance !== undefined) sections.acceptance = cleanSection(patch.acceptance);
        const changed: string[] = [];
        for (const k of Object.keys(next) as (keyof TaskFields)[]) {
          if (JSON.stringify(next[k]) !== JSON.stringify(f[k])) changed.push(k);
        }
        for (const k of ['outcome', 'read_first', 'acceptance'] as const)
          if (sections[k] !== l.doc.sections[k]) changed.push(k);
        if (changed.length === 0)
          return {
            done: {
              task: toView(f, l.doc.sections, dir.repoPath(l.name), l.doc, machineOf(id)),
              old_status: f.status,
              new_status: f.status,
              changed,
              wip_bypassed: false,
            },
          };
        next.version = f.version + 1;
        return rewrite(l, next, sections, (doc) => {
          announce(
            id,
            {
              task_id: f.key,
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
            task: toView(doc.fields, doc.sections, dir.repoPath(l.name), doc, machineOf(id)),
            old_status: f.status,
            new_status: f.status,
            changed,
            wip_bypassed: false,
          };
        });
      },
      actor,
    );
  }

  async function appendWorkLog(
    idText: string,
    text: string,
    opts: WriteOptions,
    actor: Actor,
  ): Promise<TaskChange> {
    const id = requireTaskId(idText);
    if (text.trim() === '')
      throw new ToolError('validation', 'text is empty; say what was done, found or decided');
    const line = workLogLine(text, actor, nowIso());
    return change(
      id,
      () => {
        const l = reconciler.load(id);
        checkVersion(l.doc, opts.expected_version);
        const f = l.doc.fields;
        const fields = { ...f, version: f.version + 1 };
        return rewrite(l, fields, appendLog(l.doc.sections, line), (doc) => {
          announce(
            id,
            {
              task_id: f.key,
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
            task: toView(doc.fields, doc.sections, dir.repoPath(l.name), doc, machineOf(id)),
            old_status: f.status,
            new_status: f.status,
            changed: ['work_log'],
            wip_bypassed: false,
          };
        });
      },
      actor,
    );
  }

  return { create, edit, appendWorkLog };
}
