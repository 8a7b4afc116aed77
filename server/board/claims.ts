// Claims: an agent session takes the next ready task (emergency first, then by priority, dependencies
// complete), which moves it to in_progress under that session; and which task a session holds. One
// claim at a time in this process, so parallel claims do not all pick the same first task; across
// processes the write lock and the re-run of the step keep two sessions from claiming one task.
import { ToolError } from '../errors.ts';
import { requireTaskId } from './ids.ts';
import { type Actor, parseTaskId, READY_LABEL } from './model.ts';
import type { QualityGates } from './quality-gates.ts';
import type { Loaded, Reconciler } from './reconcile.ts';
import type { BoardStore } from './store.ts';
import { appendLog, contentHash, workLogLine } from './task-file.ts';
import type { TasksDir } from './tasks-dir.ts';
import { REFUSED, type TeamBoard } from './team-board.ts';
import type { Transitions } from './transitions.ts';
import { type TaskView, toView } from './views.ts';
import { nowIso, type Step, type TaskChangeFn, type WritePath } from './write-path.ts';

export interface ClaimResult {
  claimed: boolean;
  task: TaskView | null;
  message: string;
}

const MAX_CLAIM_ATTEMPTS = 50;
/** Tasks one claim tries in a team before it answers `transient` (each refused by another hub). */
const MAX_TEAM_CLAIM_ATTEMPTS = 50;

export interface ClaimsOptions {
  store: BoardStore;
  dir: TasksDir;
  writes: WritePath;
  /** How a change of one task is written (through the team's record first, in a team). */
  change: TaskChangeFn;
  /** In a team: a claim is taken in the team's record first (team-board.ts). */
  team?: TeamBoard | undefined;
  reconciler: Reconciler;
  transitions: Transitions;
  quality: QualityGates;
}

type ClaimOptions = {
  swimlane?: string | undefined;
  bypass_wip?: boolean | undefined;
  reason?: string | undefined;
};

/** A task in progress with the session holding it and the repository paths its references name. */
export interface InProgressTask {
  id: string;
  title: string;
  agent_session: string | null;
  started: string | null;
  paths: string[];
  /** In a team: the machine whose record shows the task in progress (null without a team). */
  machine: string | null;
}

export function createClaims({
  store,
  dir,
  writes,
  change,
  team,
  reconciler,
  transitions,
  quality,
}: ClaimsOptions) {
  /**
   * The best ready task to claim, passing over `skip` (tasks the team refused this claim): its loaded
   * file, or the answer when there is none. Tasks the definition of ready holds back (board.json
   * "gates") are passed over, not refused, so one under-specified task does not stop the queue; they
   * are named when nothing else is left.
   */
  function choose(swimlane: string | null, skip: readonly number[]): { done: ClaimResult } | { l: Loaded } {
    const unready: number[] = [];
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; ) {
      const row = store.claimNext(swimlane, skip.length > 0 ? [...skip, ...unready] : unready);
      if (row === undefined)
        return {
          done: {
            claimed: false,
            task: null,
            message:
              unready.length > 0
                ? `no ready task meets the board's definition of ready (board.json "gates"): ${unready
                    .slice(0, 10)
                    .map(store.keyOf)
                    .join(
                      ', ',
                    )}${unready.length > 10 ? ` and ${unready.length - 10} more` : ''} lack an Outcome or Acceptance criteria; add them (cos_task_edit), or move one with cos_task_move and bypass_gates`
                : 'no ready task with all dependencies complete; label a task "ready" (cos_task_edit add_labels) to queue it',
          },
        };
      const text = dir.read(row.path);
      if (text === null || contentHash(text) !== row.content_hash) {
        // Changed or deleted by hand since it was indexed: resync, then choose again with fresh facts.
        if (text === null) reconciler.dropMissing(row);
        else reconciler.indexText(row.path, text);
        attempt++;
        continue;
      }
      const l = reconciler.load(row.id);
      if (quality.missing(l, 'in_progress', {}) !== null) {
        unready.push(row.id);
        continue;
      }
      return { l };
    }
    throw new ToolError('transient', 'the board kept changing while choosing a task; retry', {
      retryable: true,
    });
  }

  /** The claim of a loaded task: its move to in_progress under the claiming session. */
  function claimPlan(l: Loaded, actor: Actor, opts: ClaimOptions, now: string): Step<ClaimResult> {
    const reason = opts.bypass_wip ? opts.reason : 'claimed';
    const plan = transitions.planMove(
      l,
      'in_progress',
      { reason, bypass_wip: opts.bypass_wip },
      actor,
      true,
      now,
    );
    return {
      ...plan,
      commit: (): ClaimResult => {
        const change = plan.commit();
        return {
          claimed: true,
          task: change.task,
          message: `${change.task.id} is now in_progress for ${actor.agentSession}`,
        };
      },
    };
  }

  async function claimNext(actor: Actor, opts: ClaimOptions = {}): Promise<ClaimResult> {
    if (!actor.agentSession)
      throw new ToolError(
        'validation',
        'agent_session is required to claim a task: pass the calling agent session id',
      );
    const now = nowIso();
    const swimlane = opts.swimlane ?? null;
    if (team !== undefined) return claimThroughTeam(team, actor, opts, now);
    return writes.durableChange('claim', (): Step<ClaimResult> => {
      const chosen = choose(swimlane, []);
      return 'done' in chosen ? chosen : claimPlan(chosen.l, actor, opts, now);
    });
  }

  /**
   * A claim in a team: the task is chosen from this hub's index as alone, then taken in the team's
   * record (one conditional statement); when another hub holds it, the record now known is shown here
   * and the next task is chosen. One claim at a time in this process, so its claims do not all choose
   * the same task.
   */
  function claimThroughTeam(
    tb: TeamBoard,
    actor: Actor,
    opts: ClaimOptions,
    now: string,
  ): Promise<ClaimResult> {
    const swimlane = opts.swimlane ?? null;
    return tb.serial(async () => {
      const passed: number[] = [];
      for (let attempt = 0; attempt < MAX_TEAM_CLAIM_ATTEMPTS; attempt++) {
        const chosen = writes.write(() => {
          const c = choose(swimlane, passed);
          return 'done' in c ? c : { id: c.l.id };
        });
        if ('done' in chosen) return chosen.done;
        const { id } = chosen;
        const out = await tb.attempt(
          id,
          (): Step<ClaimResult | null> => {
            // The same task, still claimable as this hub shows it; else this claim chooses again.
            const l = reconciler.load(id);
            const f = l.doc.fields;
            if (
              (f.status !== 'icebox' && f.status !== 'emergency') ||
              !f.labels.includes(READY_LABEL) ||
              (swimlane !== null && f.swimlane !== swimlane) ||
              store.unmetDeps(id) > 0 ||
              quality.missing(l, 'in_progress', {}) !== null
            )
              return { done: null };
            return claimPlan(l, actor, opts, now);
          },
          actor.source,
        );
        if (out !== REFUSED && out !== null) return out;
        passed.push(id);
      }
      throw new ToolError('transient', 'other machines kept taking the tasks this hub chose; retry', {
        retryable: true,
      });
    });
  }

  let inProgressCache: { stamp: string; tasks: readonly InProgressTask[] } | undefined;
  /**
   * Every task in progress with the session holding it and the repository paths its references name
   * (edit conflicts count them as that agent's files; URLs and task keys are not paths).
   */
  function inProgress(): readonly InProgressTask[] {
    // Read on every edit an agent is about to make (its conflicts), at hook rates: kept until the index changes.
    const stamp = store.changeStamp();
    if (inProgressCache?.stamp === stamp) return inProgressCache.tasks;
    const tasks = readInProgress();
    inProgressCache = { stamp, tasks };
    return tasks;
  }
  function readInProgress(): InProgressTask[] {
    const out = [];
    for (const key of store.statusKeys('in_progress', 10_000)) {
      const row = store.get(parseTaskId(key) ?? 0);
      if (!row) continue;
      let refs: unknown = [];
      try {
        refs = JSON.parse(row.refs);
      } catch {
        // An index row from before references were kept: no paths.
      }
      const paths = (Array.isArray(refs) ? refs : [])
        .filter(
          (r): r is string =>
            typeof r === 'string' && !/^[a-z][a-z0-9+.-]*:/i.test(r) && !/^TASK-\d+$/i.test(r),
        )
        .map((r) =>
          r
            .trim()
            .replace(/^\.\//, '')
            .replace(/#.*$/, '')
            .replace(/:\d+(?::\d+)?$/, ''),
        )
        .filter((r) => r !== '' && !r.startsWith('/') && !r.split('/').includes('..'));
      out.push({
        id: row.key,
        title: row.title,
        agent_session: row.agent_session,
        started: row.started,
        paths,
        machine: row.machine,
      });
    }
    return out;
  }

  /**
   * Returns a task whose claimant is gone to the ready queue (icebox, or emergency when it was claimed
   * from there), with the reason in its history. Only while it is still in progress under that same
   * session: a task someone moved or re-claimed meanwhile is left alone (null).
   */
  async function release(
    idText: string,
    claimant: string,
    reason: string,
    actor: Actor,
  ): Promise<TaskView | null> {
    const id = requireTaskId(idText);
    const now = nowIso();
    return change(
      id,
      (): Step<TaskView | null> => {
        const l = reconciler.load(id);
        if (l.doc.fields.status !== 'in_progress' || l.doc.fields.agent_session !== claimant)
          return { done: null };
        const claimedFrom = [...store.events(id, 0, 10_000)]
          .reverse()
          .find((e) => e.to_status === 'in_progress')?.from_status;
        const back = claimedFrom === 'emergency' ? 'emergency' : 'icebox';
        const plan = transitions.planMove(l, back, { reason, release: true }, actor, false, now);
        return { ...plan, commit: () => plan.commit().task };
      },
      actor,
    );
  }

  /**
   * Hands a task in progress from its claimant to another agent session in one step: the file names the
   * new holder, its Work Log says who handed it to whom and why, the history records it. `from` is the
   * session asking (null: a person, through the page), which must hold the task.
   */
  async function handoff(
    idText: string,
    from: string | null,
    to: string,
    note: string,
    actor: Actor,
  ): Promise<{ task: TaskView; previous: string | null }> {
    const id = requireTaskId(idText);
    const text = note.trim();
    if (text === '')
      throw new ToolError('validation', 'note is empty; say where the work stands for the next holder');
    const now = nowIso();
    return change(
      id,
      (): Step<{ task: TaskView; previous: string | null }> => {
        const l = reconciler.load(id);
        const f = l.doc.fields;
        if (f.status !== 'in_progress')
          throw new ToolError(
            'validation',
            `${f.key} is ${f.status}, not in progress: only a claimed task is handed off (the other agent can claim it)`,
          );
        if (from !== null && f.agent_session !== from)
          throw new ToolError(
            'permission',
            `${f.key} is held by ${f.agent_session ?? 'nobody'}, not by ${from}: only its claimant, or a person on the Activity page, hands it off`,
          );
        if (f.agent_session === to) throw new ToolError('validation', `${f.key} is already held by ${to}`);
        const fields = { ...f, agent_session: to, version: f.version + 1 };
        // The line names the claimant handing off as its author; a person's handoff says so.
        const by = from === null ? ' by a person' : '';
        const line = workLogLine(`handed off${by} to ${to}: ${text}`, actor, now);
        return writes.rewrite(l, fields, appendLog(l.doc.sections, line), (doc) => {
          writes.announce(
            id,
            {
              task_id: f.key,
              change: 'handed_off',
              old_status: f.status,
              new_status: f.status,
              agent_session: to,
              source: actor.source,
              version: fields.version,
            },
            'edit',
            { at: now, detail: { handoff: { from: f.agent_session, to, by: from }, note: text } },
          );
          const task = toView(doc.fields, doc.sections, dir.repoPath(l.name), doc, writes.machineOf(id));
          return { task, previous: f.agent_session };
        });
      },
      actor,
    );
  }

  /** The in-progress task an agent session holds (presence shows it), or null. */
  function claimedBy(agentSession: string): { id: string; title: string } | null {
    const row = store.claimedBy(agentSession);
    return row ? { id: row.key, title: row.title } : null;
  }

  return { claimNext, claimedBy, inProgress, release, handoff };
}
