// Claims: an agent session takes the next ready task (emergency first, then by priority, dependencies
// complete), which moves it to in_progress under that session; and which task a session holds. One
// claim at a time in this process, so parallel claims do not all pick the same first task; across
// processes the write lock and the re-run of the step keep two sessions from claiming one task.
import { ToolError } from '../errors.ts';
import { requireTaskId } from './ids.ts';
import { type Actor, parseTaskId } from './model.ts';
import type { QualityGates } from './quality-gates.ts';
import type { Reconciler } from './reconcile.ts';
import type { BoardStore } from './store.ts';
import { contentHash } from './task-file.ts';
import type { TasksDir } from './tasks-dir.ts';
import type { Transitions } from './transitions.ts';
import type { TaskView } from './views.ts';
import { nowIso, type Step, taskQueueKey, type WritePath } from './write-path.ts';

export interface ClaimResult {
  claimed: boolean;
  task: TaskView | null;
  message: string;
}

const MAX_CLAIM_ATTEMPTS = 50;

export interface ClaimsOptions {
  store: BoardStore;
  dir: TasksDir;
  writes: WritePath;
  reconciler: Reconciler;
  transitions: Transitions;
  quality: QualityGates;
}

export function createClaims({ store, dir, writes, reconciler, transitions, quality }: ClaimsOptions) {
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
    return writes.durableChange('claim', (): Step<ClaimResult> => {
      // Queued tasks the definition of ready holds back (board.json "gates"): passed over, not refused,
      // so one under-specified task does not stop the queue; named when nothing else is left.
      const unready: number[] = [];
      for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; ) {
        const row = store.claimNext(opts.swimlane ?? null, unready);
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

  /**
   * Every task in progress with the session holding it and the repository paths its references name
   * (edit conflicts count them as that agent's files; URLs and task keys are not paths).
   */
  function inProgress(): {
    id: string;
    title: string;
    agent_session: string | null;
    started: string | null;
    paths: string[];
  }[] {
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
    return writes.durableChange(taskQueueKey(id), (): Step<TaskView | null> => {
      const l = reconciler.load(id);
      if (l.doc.fields.status !== 'in_progress' || l.doc.fields.agent_session !== claimant)
        return { done: null };
      const claimedFrom = [...store.events(id, 0, 10_000)]
        .reverse()
        .find((e) => e.to_status === 'in_progress')?.from_status;
      const back = claimedFrom === 'emergency' ? 'emergency' : 'icebox';
      const plan = transitions.planMove(l, back, { reason, release: true }, actor, false, now);
      return { ...plan, commit: () => plan.commit().task };
    });
  }

  /** The in-progress task an agent session holds (presence shows it), or null. */
  function claimedBy(agentSession: string): { id: string; title: string } | null {
    const row = store.claimedBy(agentSession);
    return row ? { id: row.key, title: row.title } : null;
  }

  return { claimNext, claimedBy, inProgress, release };
}
