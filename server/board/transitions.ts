// Moving a task between columns: the transition table, the gates a task passes to enter a column, the
// fields a move stamps (started, completed, the claiming session) and its work-log line and history.
// A claim is a move to in_progress (claims.ts builds on planMove).
import { ToolError } from '../errors.ts';
import { requireTaskId } from './ids.ts';
import {
  type Actor,
  canTransition,
  READY_LABEL,
  type Status,
  type TaskFields,
  TRANSITIONS,
} from './model.ts';
import type { GateOptions, QualityGates } from './quality-gates.ts';
import type { Loaded, Reconciler } from './reconcile.ts';
import { appendLog, workLogLine } from './task-file.ts';
import type { TasksDir } from './tasks-dir.ts';
import { type TaskChange, toView } from './views.ts';
import type { BypassOptions, GatePass, Wip } from './wip.ts';
import {
  checkVersion,
  type FilePlan,
  nowIso,
  type TaskChangeFn,
  type WriteOptions,
  type WritePath,
} from './write-path.ts';

export interface MoveOptions extends WriteOptions, BypassOptions, GateOptions {
  reason?: string | undefined;
  /**
   * A release of a dead claim (reclaim): the task leaves its claimant (agent_session cleared) and goes
   * back to the ready queue (the ready label added when it lacks it).
   */
  release?: boolean | undefined;
}

export interface TransitionsOptions {
  dir: TasksDir;
  writes: WritePath;
  /** How a change of one task is written (through the team's record first, in a team). */
  change: TaskChangeFn;
  reconciler: Reconciler;
  wip: Wip;
  quality: QualityGates;
  /** Commits linked to task `id` (the service names it by its board key); absent when the hub reads no git. */
  linkedCommits?: ((id: number) => Promise<number>) | undefined;
  gateSettings: () => { done_needs_commit: boolean };
}

export type Transitions = ReturnType<typeof createTransitions>;

export function createTransitions({
  dir,
  writes,
  change,
  reconciler,
  wip,
  quality,
  linkedCommits,
  gateSettings,
}: TransitionsOptions) {
  /**
   * The gates a task passes to enter `to` once the transition itself is allowed. A gate refuses with a
   * validation ToolError saying what is missing, or lets the move through (bypassed, with a work-log line
   * and a record stored when the move commits): the quality gates (definitions of ready and done), then
   * the column's WIP cap.
   */
  function gateEntry(
    task: Loaded,
    to: Status,
    opts: MoveOptions,
    actor: Actor,
  ): GatePass & { gates: boolean } {
    const q = quality.gate(task, to, opts, actor);
    const w = wip.gate(to, opts, actor);
    const lines = [q.line, w.line].filter((l): l is string => l !== null);
    return {
      bypassed: w.bypassed,
      gates: q.bypassed,
      line: lines.length ? lines.join('; ') : null,
      record: (id) => {
        q.record(id);
        w.record(id);
      },
    };
  }

  /** The file plan of moving a loaded task to `to`; `claimed` marks a claim (event and history say so). */
  function planMove(
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
        `${l.doc.fields.key} cannot move from ${from} to ${to}; allowed from ${from}: ${TRANSITIONS[from].join(', ')}`,
      );
    }
    const gate = gateEntry(l, to, opts, actor);
    const f = l.doc.fields;
    const fields: TaskFields = {
      ...f,
      status: to,
      started: to === 'in_progress' && f.started === null ? now : f.started,
      completed: to === 'complete' ? now : to === 'archive' ? f.completed : null,
      agent_session: opts.release
        ? null
        : to === 'in_progress' && actor.agentSession
          ? actor.agentSession
          : f.agent_session,
      labels: opts.release && !f.labels.includes(READY_LABEL) ? [...f.labels, READY_LABEL] : f.labels,
      version: f.version + 1,
    };
    let sections = l.doc.sections;
    const reason = opts.reason?.trim() || null;
    if (reason !== null || gate.line !== null) {
      const parts = [`${from} → ${to}${reason ? `: ${reason}` : ''}`];
      if (gate.line) parts.push(gate.line);
      sections = appendLog(sections, workLogLine(parts.join('; '), actor, now));
    }
    return writes.rewrite(l, fields, sections, (doc) => {
      gate.record(l.id);
      writes.announce(
        l.id,
        {
          task_id: fields.key,
          change: claimed ? 'claimed' : 'moved',
          old_status: from,
          new_status: to,
          agent_session: actor.agentSession ?? (opts.release ? f.agent_session : fields.agent_session),
          source: actor.source,
          version: fields.version,
        },
        'status',
        {
          reason,
          // The time the file's started/completed say: in a team a PostgreSQL round trip before the
          // commit, and the history must tell the same moment (Flow reads both).
          at: now,
          detail: {
            ...(claimed ? { claimed: true } : {}),
            ...(gate.bypassed ? { wip_bypassed: true } : {}),
            ...(gate.gates ? { gates_bypassed: true } : {}),
          },
        },
      );
      return {
        task: toView(doc.fields, doc.sections, dir.repoPath(l.name), doc, writes.machineOf(l.id)),
        old_status: from,
        new_status: to,
        changed: ['status'],
        wip_bypassed: gate.bypassed,
      };
    });
  }

  async function move(idText: string, to: Status, opts: MoveOptions, actor: Actor): Promise<TaskChange> {
    const id = requireTaskId(idText);
    const now = nowIso();
    // git is read before the task's queue is entered: a slow history never holds other writers.
    let counted = opts;
    if (to === 'complete' && gateSettings().done_needs_commit && linkedCommits)
      counted = { ...opts, linked_commits: await linkedCommits(id).catch(() => 0) };
    return change(
      id,
      () => {
        const l = reconciler.load(id);
        checkVersion(l.doc, opts.expected_version);
        return planMove(l, to, counted, actor, false, now);
      },
      actor,
    );
  }

  return { planMove, move };
}
