// How work flowed across the board: the daily (what moved since a time, what is stuck) and the retro
// (throughput, cycle and lead time, WIP and cumulative flow, time blocked) over a window. Both read the
// hub's history (task_events) and the task rows; a task that came from another tool before the hub saw
// it has only its front matter's created/started/completed, and those stand in for the moves the
// history never recorded.
import type { Db } from '../db/open.ts';
import { STATUSES, type Status } from './model.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The columns that count as work in progress. */
export const WIP_STATUSES: readonly Status[] = ['in_progress', 'testing'];

interface EventRow {
  seq: number;
  task_id: number;
  at: string;
  type: string;
  from_status: string | null;
  to_status: string | null;
  agent_session: string | null;
  reason: string | null;
  /** In a team: the machine whose hub made the change (null alone, and for history from before). */
  machine: string | null;
}

interface TaskRowLite {
  id: number;
  /** The id as the file writes it (`TASK-046`). */
  key: string;
  title: string;
  status: string;
  kind: string;
  swimlane: string | null;
  agent_session: string | null;
  created: string | null;
  started: string | null;
  completed: string | null;
}

/** One task's moves in time order: the status it entered and when. */
export interface Transition {
  at: number;
  to: Status | null;
  from: string | null;
  who: string | null;
  /** The machine it happened on (in a team; null otherwise). */
  machine: string | null;
  reason: string | null;
  /** From the front matter (no history event recorded it). */
  inferred: boolean;
}

export interface TaskFlow {
  id: string;
  title: string;
  kind: string;
  swimlane: string | null;
  status: string;
  agent_session: string | null;
  created: number | null;
  transitions: Transition[];
  /** Times of its history events of any kind (work-log lines, edits, moves), ascending. */
  activity: number[];
}

const statements = new WeakMap<Db, { events: () => EventRow[]; tasks: () => TaskRowLite[] }>();

/** Every task with its moves. History rows are the hub's own records; tasks are its index of the files. */
export function readFlows(db: Db): TaskFlow[] {
  let s = statements.get(db);
  if (!s) {
    const ev = db.prepare<[], EventRow>(
      `SELECT seq, task_id, at, type, from_status, to_status, agent_session, reason,
         CASE WHEN json_valid(detail) THEN json_extract(detail, '$.machine') END AS machine
       FROM task_events ORDER BY seq`,
    );
    const tk = db.prepare<[], TaskRowLite>(
      'SELECT id, key, title, status, kind, swimlane, agent_session, created, started, completed FROM tasks',
    );
    s = { events: () => ev.all(), tasks: () => tk.all() };
    statements.set(db, s);
  }
  const byTask = new Map<number, EventRow[]>();
  for (const e of s.events()) {
    const list = byTask.get(e.task_id) ?? [];
    if (list.length === 0) byTask.set(e.task_id, list);
    list.push(e);
  }
  return s.tasks().map((t) => flowOf(t, byTask.get(t.id) ?? []));
}

const isStatusName = (v: unknown): v is Status =>
  typeof v === 'string' && (STATUSES as readonly string[]).includes(v);

/** A front-matter date or time (`2026-11-02`, `2026-11-02T09:00:00Z`) as epoch ms; null when it is neither. */
export function parseInstant(v: string | null): number | null {
  if (v === null) return null;
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  return Number.isNaN(t) ? null : t;
}

function flowOf(t: TaskRowLite, unordered: EventRow[]): TaskFlow {
  // By time, then seq: history imported or reconciled late still reads in the order things happened.
  const events = unordered
    .map((e) => ({ e, at: Date.parse(e.at) }))
    .filter((x) => !Number.isNaN(x.at))
    .sort((a, b) => a.at - b.at || a.e.seq - b.e.seq)
    .map((x) => x.e);
  const first = events[0] ? Date.parse(events[0].at) : Number.POSITIVE_INFINITY;
  const transitions: Transition[] = [];
  // What the front matter says happened before the hub's history begins.
  const created = parseInstant(t.created);
  const started = parseInstant(t.started);
  const completed = parseInstant(t.completed);
  const inferred: [number | null, Status][] = [
    [created, 'icebox'],
    [started, 'in_progress'],
    [completed, 'complete'],
  ];
  let current: string | null = null;
  for (const [at, to] of inferred) {
    if (at === null || at >= first) continue;
    if (to === 'complete' && t.status !== 'complete' && t.status !== 'archive' && events.length === 0)
      continue;
    transitions.push({
      at,
      to,
      from: current,
      who: t.agent_session,
      machine: null,
      reason: null,
      inferred: true,
    });
    current = to;
  }
  transitions.sort((a, b) => a.at - b.at);
  const activity: number[] = [];
  for (const e of events) {
    const at = Date.parse(e.at);
    activity.push(at);
    let to: Status | null = null;
    if (e.type !== 'deleted') {
      if (!isStatusName(e.to_status)) continue;
      to = e.to_status;
    }
    if (to === current) continue;
    transitions.push({
      at,
      to,
      from: current,
      who: e.agent_session,
      machine: typeof e.machine === 'string' ? e.machine : null,
      reason: e.reason,
      inferred: false,
    });
    current = to;
  }
  return {
    id: t.key,
    title: t.title,
    kind: t.kind,
    swimlane: t.swimlane,
    status: t.status,
    agent_session: t.agent_session,
    created: created ?? transitions[0]?.at ?? null,
    transitions,
    activity,
  };
}

/** The status a task was in at `at` (null before it existed or after it was deleted). */
export function statusAt(f: TaskFlow, at: number): Status | null {
  let s: Status | null = null;
  for (const tr of f.transitions) {
    if (tr.at > at) break;
    s = tr.to;
  }
  return s;
}

// --- the daily ---------------------------------------------------------------------------------------

export interface DailyItem {
  id: string;
  title: string;
  at: string;
  who: string | null;
  /** In a team: the machine the move was made on. */
  machine: string | null;
  from: string | null;
  reason: string | null;
}

export interface StuckItem {
  id: string;
  title: string;
  who: string | null;
  /** In a team: the machine it was claimed on. */
  machine: string | null;
  since: string | null;
  last_activity: string | null;
  idle_hours: number;
}

export interface Daily {
  since: string;
  until: string;
  completed: DailyItem[];
  started: DailyItem[];
  blocked: DailyItem[];
  stuck: StuckItem[];
}

export function daily(flows: TaskFlow[], opts: { since: number; until: number; stuckHours: number }): Daily {
  const out: Daily = {
    since: iso(opts.since),
    until: iso(opts.until),
    completed: [],
    started: [],
    blocked: [],
    stuck: [],
  };
  for (const f of flows) {
    for (const tr of f.transitions) {
      if (tr.at < opts.since || tr.at >= opts.until) continue;
      const item = {
        id: f.id,
        title: f.title,
        at: iso(tr.at),
        who: tr.who ?? f.agent_session,
        machine: tr.machine,
        from: tr.from,
        reason: tr.reason,
      };
      if (tr.to === 'complete') out.completed.push(item);
      else if (tr.to === 'in_progress') out.started.push(item);
      else if (tr.to === 'blocked') out.blocked.push(item);
    }
    // Stuck as of the window's end: in progress then, and nothing happened to it for stuck_hours.
    if (statusAt(f, opts.until - 1) !== 'in_progress') continue;
    const entered = f.transitions.filter((tr) => tr.at < opts.until && tr.to === 'in_progress').pop();
    const lastEvent = f.activity.filter((a) => a < opts.until).pop() ?? 0;
    const last = Math.max(lastEvent, entered?.at ?? 0);
    if (last === 0) continue;
    const idle = (opts.until - last) / HOUR;
    if (idle >= opts.stuckHours)
      out.stuck.push({
        id: f.id,
        title: f.title,
        who: entered?.who ?? f.agent_session,
        machine: entered?.machine ?? null,
        since: entered ? iso(entered.at) : null,
        last_activity: iso(last),
        idle_hours: round(idle),
      });
  }
  const byAt = (a: { at: string }, b: { at: string }) => a.at.localeCompare(b.at);
  out.completed.sort(byAt);
  out.started.sort(byAt);
  out.blocked.sort(byAt);
  out.stuck.sort((a, b) => b.idle_hours - a.idle_hours || a.id.localeCompare(b.id));
  return out;
}

// --- the retro ---------------------------------------------------------------------------------------

export interface Spread {
  count: number;
  median_hours: number | null;
  p85_hours: number | null;
}

export interface Retro {
  from: string;
  to: string;
  throughput: { week: string; starts: string; completed: number }[];
  cycle_time: {
    all: Spread;
    by_kind: (Spread & { kind: string })[];
    by_swimlane: (Spread & { swimlane: string })[];
  };
  lead_time: {
    all: Spread;
    by_kind: (Spread & { kind: string })[];
    by_swimlane: (Spread & { swimlane: string })[];
  };
  completions: {
    id: string;
    kind: string;
    swimlane: string | null;
    completed: string;
    cycle_hours: number | null;
    lead_hours: number | null;
  }[];
  /** Each UTC day's end: how many tasks were in each status (cumulative flow) and in progress (WIP). */
  flow: { day: string; wip: number; counts: Record<string, number> }[];
  blocked: { total_hours: number; tasks: { id: string; title: string; hours: number }[] };
}

/** The median (mean of the middle two for an even count) and the 85th percentile (nearest rank). */
export function spread(values: number[]): Spread {
  if (values.length === 0) return { count: 0, median_hours: null, p85_hours: null };
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  const median = v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
  const p85 = v[Math.max(0, Math.ceil(0.85 * v.length) - 1)]!;
  return { count: v.length, median_hours: round(median), p85_hours: round(p85) };
}

export function retro(flows: TaskFlow[], opts: { from: number; to: number }): Retro {
  const { from, to } = opts;
  const completions: Retro['completions'] = [];
  for (const f of flows) {
    // Completed in the window: its last move into complete falls inside it.
    const done = [...f.transitions].reverse().find((tr) => tr.to === 'complete');
    if (!done || done.at < from || done.at >= to) continue;
    const start = f.transitions.find((tr) => tr.to === 'in_progress' && tr.at <= done.at);
    completions.push({
      id: f.id,
      kind: f.kind,
      swimlane: f.swimlane,
      completed: iso(done.at),
      cycle_hours: start ? round((done.at - start.at) / HOUR) : null,
      lead_hours: f.created !== null && f.created <= done.at ? round((done.at - f.created) / HOUR) : null,
    });
  }
  completions.sort((a, b) => a.completed.localeCompare(b.completed) || a.id.localeCompare(b.id));

  const throughput: Retro['throughput'] = [];
  for (let w = weekStart(from); w < to; w += 7 * DAY) {
    const end = w + 7 * DAY;
    throughput.push({
      week: isoWeek(w),
      starts: iso(w).slice(0, 10),
      completed: completions.filter((c) => {
        const t = Date.parse(c.completed);
        return t >= w && t < end;
      }).length,
    });
  }

  const group = <K extends 'kind' | 'swimlane'>(key: K, pick: 'cycle_hours' | 'lead_hours') => {
    const groups = new Map<string, number[]>();
    for (const c of completions) {
      const name = c[key] ?? '(none)';
      const v = c[pick];
      const list = groups.get(name) ?? [];
      groups.set(name, list);
      if (v !== null) list.push(v);
    }
    return [...groups.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, values]) => ({ [key]: name, ...spread(values) }) as Spread & Record<K, string>);
  };
  const values = (pick: 'cycle_hours' | 'lead_hours') =>
    completions.map((c) => c[pick]).filter((v): v is number => v !== null);

  const flow: Retro['flow'] = [];
  for (let d = dayStart(from) + DAY; d <= dayStart(to - 1) + DAY; d += DAY) {
    const at = Math.min(d, to) - 1;
    const counts: Record<string, number> = {};
    for (const s of STATUSES) counts[s] = 0;
    for (const f of flows) {
      const s = statusAt(f, at);
      if (s !== null) counts[s] = (counts[s] ?? 0) + 1;
    }
    flow.push({
      day: iso(d - DAY).slice(0, 10),
      wip: WIP_STATUSES.reduce((n, s) => n + (counts[s] ?? 0), 0),
      counts,
    });
  }

  const blockedTasks: Retro['blocked']['tasks'] = [];
  let totalBlocked = 0;
  for (const f of flows) {
    let ms = 0;
    f.transitions.forEach((tr, i) => {
      if (tr.to !== 'blocked') return;
      const end = f.transitions[i + 1]?.at ?? to;
      ms += Math.max(0, Math.min(end, to) - Math.max(tr.at, from));
    });
    if (ms > 0) {
      blockedTasks.push({ id: f.id, title: f.title, hours: round(ms / HOUR) });
      totalBlocked += ms;
    }
  }
  blockedTasks.sort((a, b) => b.hours - a.hours || a.id.localeCompare(b.id));

  return {
    from: iso(from),
    to: iso(to),
    throughput,
    cycle_time: {
      all: spread(values('cycle_hours')),
      by_kind: group('kind', 'cycle_hours'),
      by_swimlane: group('swimlane', 'cycle_hours'),
    },
    lead_time: {
      all: spread(values('lead_hours')),
      by_kind: group('kind', 'lead_hours'),
      by_swimlane: group('swimlane', 'lead_hours'),
    },
    completions,
    flow,
    blocked: { total_hours: round(totalBlocked / HOUR), tasks: blockedTasks },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const round = (h: number) => Math.round(h * 100) / 100;
const dayStart = (ms: number) => Math.floor(ms / DAY) * DAY;
/** Monday 00:00 UTC of the week holding `ms`. */
export const weekStart = (ms: number) => {
  const d = dayStart(ms);
  const weekday = (new Date(d).getUTCDay() + 6) % 7;
  return d - weekday * DAY;
};

/** ISO 8601 week name (`2026-W45`) of a Monday. */
export function isoWeek(monday: number): string {
  const thursday = new Date(monday + 3 * DAY);
  const year = thursday.getUTCFullYear();
  const jan4 = Date.UTC(year, 0, 4);
  const week = 1 + Math.round((monday - weekStart(jan4)) / (7 * DAY));
  return `${year}-W${String(week).padStart(2, '0')}`;
}
