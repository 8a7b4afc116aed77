// Who worked on which task when, from the board's history (task_events): a task is an agent's from its
// claim (entering in_progress or testing with that agent as holder) until it leaves those columns
// (complete, released back, blocked, deleted) or is handed off to another agent. Usage an agent spent
// in that interval is the task's; the rest is its session's. An agent holding two tasks at once spends
// on the one it claimed last, so no token is counted twice.
import type { Db } from '../db/open.ts';

const WORKING = new Set(['in_progress', 'testing']);

export interface Segment {
  /** The agent session as the claim named it (a hook session, or an MCP session naming one). */
  agent: string;
  /** tasks.id (the n of TASK-n). */
  task: number;
  start: number;
  /** Exclusive; Infinity while the task is still held. */
  end: number;
}

interface EventRow {
  seq: number;
  task_id: number;
  at: string;
  type: string;
  to_status: string | null;
  agent_session: string | null;
  detail: string | null;
}

interface Span {
  agent: string;
  task: number;
  start: number;
  end: number;
}

function handoffOf(detail: string | null): { from: string | null; to: string } | null {
  if (detail === null || !detail.includes('handoff')) return null;
  try {
    const h = (JSON.parse(detail) as { handoff?: { from?: unknown; to?: unknown } }).handoff;
    if (h && typeof h.to === 'string') return { from: typeof h.from === 'string' ? h.from : null, to: h.to };
  } catch {
    /* not a handoff */
  }
  return null;
}

/** Every claim interval in the history, per task, in time order. */
export function workSpans(rows: readonly EventRow[]): Span[] {
  const open = new Map<number, Map<string, number>>();
  const out: Span[] = [];
  const close = (task: number, at: number, except?: string) => {
    const held = open.get(task);
    if (!held) return;
    for (const [agent, start] of held)
      if (agent !== except) {
        if (at > start) out.push({ agent, task, start, end: at });
        held.delete(agent);
      }
  };
  const hold = (task: number, agent: string, at: number) => {
    let held = open.get(task);
    if (!held) {
      held = new Map();
      open.set(task, held);
    }
    if (!held.has(agent)) held.set(agent, at);
  };
  for (const r of rows) {
    const at = Date.parse(r.at);
    if (!Number.isFinite(at)) continue;
    if (r.type === 'status') {
      if (r.to_status !== null && WORKING.has(r.to_status)) {
        if (r.agent_session) {
          close(r.task_id, at, r.agent_session);
          hold(r.task_id, r.agent_session, at);
        }
      } else close(r.task_id, at);
    } else if (r.type === 'deleted') close(r.task_id, at);
    else if (r.type === 'edit') {
      const h = handoffOf(r.detail);
      if (h) {
        close(r.task_id, at, h.to);
        hold(r.task_id, h.to, at);
      }
    }
  }
  for (const [task, held] of open)
    for (const [agent, start] of held) out.push({ agent, task, start, end: Number.POSITIVE_INFINITY });
  return out;
}

/** Per agent, disjoint intervals: where two claims overlap, the later claim's task has the time. */
export function segmentsOf(spans: readonly Span[]): Segment[] {
  const byAgent = new Map<string, Span[]>();
  for (const s of spans) {
    const list = byAgent.get(s.agent) ?? [];
    if (list.length === 0) byAgent.set(s.agent, list);
    list.push(s);
  }
  const out: Segment[] = [];
  for (const [agent, list] of byAgent) {
    if (list.length === 1) {
      out.push({ ...(list[0] as Span) });
      continue;
    }
    const cuts = [...new Set(list.flatMap((s) => [s.start, s.end]))].sort((a, b) => a - b);
    for (let i = 0; i + 1 < cuts.length; i++) {
      const a = cuts[i] as number;
      const b = cuts[i + 1] as number;
      let pick: Span | null = null;
      for (const s of list)
        if (s.start <= a && s.end >= b && (pick === null || s.start > pick.start)) pick = s;
      if (pick === null) continue;
      const last = out[out.length - 1];
      if (last && last.agent === agent && last.task === pick.task && last.end === a) last.end = b;
      else out.push({ agent, task: pick.task, start: a, end: b });
    }
  }
  return out;
}

const cache = new WeakMap<Db, { stamp: string; segments: Segment[] }>();

/** The history's work segments, recomputed only when task_events changed. */
export function readSegments(db: Db): Segment[] {
  const stamp = db
    .prepare("SELECT COALESCE(MAX(seq), 0) || ':' || COUNT(*) FROM task_events")
    .pluck()
    .get() as string;
  const hit = cache.get(db);
  if (hit && hit.stamp === stamp) return hit.segments;
  const rows = db
    .prepare(
      `SELECT seq, task_id, at, type, to_status, agent_session, detail FROM task_events
       WHERE type IN ('status', 'deleted') OR (type = 'edit' AND detail LIKE '%handoff%') ORDER BY seq`,
    )
    .all() as EventRow[];
  const segments = segmentsOf(workSpans(rows));
  cache.set(db, { stamp, segments });
  return segments;
}
