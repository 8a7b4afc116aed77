// WIP caps: the gate a task passes to enter a capped column (refused at the cap unless bypassed with a
// reason, and the bypass recorded), and the caps' state as the board and cos_task_wip_check report it.
import type { Logger } from 'pino';
import { ToolError } from '../errors.ts';
import type { BoardSettings } from './board-config.ts';
import type { Actor, ChangeSource, Status } from './model.ts';
import type { BoardStore } from './store.ts';

/** A gate's verdict on a change it let through. */
export interface GatePass {
  /** true when the gate would have refused and the caller bypassed it with a reason. */
  bypassed: boolean;
  /** The work-log line that records the bypass, or null. */
  line: string | null;
  /** Stores what the gate must remember (the bypass); call it when the change commits. */
  record: (taskId: number) => void;
}

export interface BypassOptions {
  bypass_wip?: boolean | undefined;
  reason?: string | undefined;
}

export interface WipColumn {
  status: Status;
  count: number;
  cap: number;
  at_cap: boolean;
  over_cap: boolean;
  task_ids: string[];
}

export interface WipOptions {
  store: BoardStore;
  settings: () => BoardSettings;
  log: Logger;
}

export type Wip = ReturnType<typeof createWip>;

export function createWip({ store, settings, log }: WipOptions) {
  /**
   * Whether a task may enter `to` under its WIP cap. Refuses (validation) at the cap unless bypass_wip
   * with a reason; a bypass gives the work-log line to add and `record`, which stores it (call it when
   * the change commits).
   */
  function gate(to: Status, opts: BypassOptions, actor: Actor): GatePass {
    const none = { bypassed: false, line: null, record: () => {} };
    const cap = settings().wip[to];
    if (cap === undefined) return none;
    const count = store.statusCount(to);
    if (count < cap) return none;
    if (!opts.bypass_wip) {
      const ids = store.statusKeys(to, 10).join(', ');
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
        log.warn({ task: store.keyOf(taskId), column: to, cap, count }, 'WIP cap bypassed');
      },
    };
  }

  function columns(): WipColumn[] {
    const caps = settings().wip;
    return (Object.entries(caps) as [Status, number][]).map(([status, cap]) => {
      const count = store.statusCount(status);
      return {
        status,
        count,
        cap,
        at_cap: count >= cap,
        over_cap: count > cap,
        task_ids: store.statusKeys(status, 20),
      };
    });
  }

  function check() {
    const wip = columns();
    return {
      columns: wip,
      violations: wip
        .filter((c) => c.over_cap)
        .map((c) => ({ status: c.status, count: c.count, cap: c.cap })),
      recent_bypasses: store.recentBypasses(10).map((b) => ({
        task_id: store.keyOf(b.task_id as number),
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

  return { gate, columns, check };
}
