// Quality gates, off unless board.json turns them on: a definition of ready (entering in_progress needs
// an Outcome and Acceptance criteria) and a definition of done (entering complete needs a work-log entry
// since the claim and, when configured, a commit linked to the task). A refused move says what is
// missing; bypass_gates with a reason lets it through, recorded like a WIP bypass (work log, history,
// the hub log).
import type { Logger } from 'pino';
import { ToolError } from '../errors.ts';
import type { GateSettings } from './board-config.ts';
import type { Actor, Status } from './model.ts';
import type { Loaded } from './reconcile.ts';
import type { BoardStore } from './store.ts';
import type { GatePass } from './wip.ts';

export interface GateOptions {
  bypass_gates?: boolean | undefined;
  reason?: string | undefined;
  /** Commits linked to the task, counted before the move (git is read outside the write queue). */
  linked_commits?: number | undefined;
}

const ENTRY = /^- (\d{4}-\d{2}-\d{2}T[0-9:.]+Z?)(?: \([^)]*\))? (.*)$/;
/** Lines the hub writes itself on a move or a bypass: not work someone logged. */
const RECORD = /^([a-z_]+ → [a-z_]+|WIP bypass:|Gate bypass:)/;

/** Work-log entries made at or after `since` (ISO), the hub's own move and bypass lines aside. */
export function entriesSince(workLog: string, since: string | null): number {
  let n = 0;
  const from = since === null ? Number.NEGATIVE_INFINITY : Date.parse(since);
  for (const line of workLog.split(/\r?\n/)) {
    const m = ENTRY.exec(line);
    if (!m?.[1]) continue;
    const at = Date.parse(m[1]);
    if (!Number.isNaN(at) && at >= from && !RECORD.test(m[2] ?? '')) n++;
  }
  return n;
}

export function createQualityGates({
  store,
  settings,
  log,
}: {
  store: BoardStore;
  settings: () => GateSettings;
  log: Logger;
}) {
  /** When the task last entered in_progress (its claim), from the history; else its started field. */
  function claimedAt(l: Loaded): string | null {
    let at: string | null = null;
    for (let after = 0; ; ) {
      const page = store.events(l.id, after, 500);
      for (const e of page) if (e.type === 'status' && e.to_status === 'in_progress') at = e.at;
      if (page.length < 500) break;
      after = page[page.length - 1]!.seq;
    }
    return at ?? l.doc.fields.started;
  }

  /** What the task lacks to enter `to`; empty when it may. */
  function missing(
    l: Loaded,
    to: Status,
    opts: GateOptions,
  ): { gate: 'ready' | 'done'; lacks: string[] } | null {
    const g = settings();
    const s = l.doc.sections;
    if (to === 'in_progress' && g.ready) {
      const lacks = [];
      if (s.outcome.trim() === '') lacks.push('an Outcome');
      if (s.acceptance.trim() === '') lacks.push('Acceptance criteria');
      return lacks.length ? { gate: 'ready', lacks } : null;
    }
    if (to === 'complete' && (g.done || g.done_needs_commit)) {
      const lacks = [];
      if (g.done && entriesSince(s.work_log, claimedAt(l)) === 0)
        lacks.push('a Work Log entry since it was claimed');
      if (g.done_needs_commit && (opts.linked_commits ?? 0) === 0)
        lacks.push(
          `a commit naming ${l.doc.fields.key} (in its message, a trailer "Task: ${l.doc.fields.key}" or its branch)`,
        );
      return lacks.length ? { gate: 'done', lacks } : null;
    }
    return null;
  }

  function gate(l: Loaded, to: Status, opts: GateOptions, actor: Actor): GatePass {
    const none = { bypassed: false, line: null, record: () => {} };
    const m = missing(l, to, opts);
    if (m === null) return none;
    const what = `${l.doc.fields.key} cannot enter ${to}: the board's definition of ${m.gate} (board.json "gates") needs ${m.lacks.join(' and ')}`;
    if (!opts.bypass_gates)
      throw new ToolError(
        'validation',
        `${what}; add what is missing, or pass bypass_gates: true with a reason (both are recorded)`,
      );
    const reason = opts.reason?.trim() ?? '';
    if (reason === '') throw new ToolError('validation', `bypass_gates needs a reason: ${what}`);
    return {
      bypassed: true,
      line: `Gate bypass: definition of ${m.gate} (missing ${m.lacks.join(', ')}): ${reason}`,
      record: (taskId) =>
        log.warn(
          { task: store.keyOf(taskId), gate: m.gate, missing: m.lacks, agent: actor.agentSession },
          'quality gate bypassed',
        ),
    };
  }

  return { gate, missing };
}

export type QualityGates = ReturnType<typeof createQualityGates>;
