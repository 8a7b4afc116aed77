// The cost report: tokens by kind and their cost, for a task, an agent session or a time, grouped by
// task, agent, model, day, week or kind of task. Sums run in SQLite (indexed by agent and time); cost
// is applied per model from the price table, so an unpriced model's tokens are reported as such.
import type { Db } from '../db/open.ts';
import { costAt, type PriceTable, type TokenCounts } from './prices.ts';
import { readSegments, type Segment } from './spans.ts';
import type { GroupExpr, SumRow, UsageStore } from './store.ts';

export const GROUP_BY = ['task', 'agent', 'model', 'day', 'week', 'kind'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export interface Totals extends TokenCounts {
  total_tokens: number;
  /** USD of the priced tokens; null when none of them has a price. */
  cost_usd: number | null;
  /** Tokens of models without a price (counted, not costed), or null when every token is priced. */
  unpriced: { tokens: number; models: string[] } | null;
  /** Model responses counted. */
  records: number;
}

export interface CostGroup extends Totals {
  /** The task id, agent session, model, day (YYYY-MM-DD), week's Monday or kind; null: none (outside any task). */
  key: string | null;
  label: string;
  task?: { id: string; title: string; status: string; kind: string; over_budget: boolean } | null;
  client?: string | null;
}

export interface CostReportInput {
  task_id?: string | undefined;
  agent_session?: string | undefined;
  since?: number | undefined;
  group_by: GroupBy;
}

export interface CostReport {
  group_by: GroupBy;
  total: Totals;
  groups: CostGroup[];
  /** Over the completed tasks in the answer (group_by task): what one cost. */
  completed_tasks: { tasks: number; median_cost_usd: number | null; p85_cost_usd: number | null } | null;
  budget: { task_usd: number | null; over: string[] };
}

interface TaskRow {
  id: number;
  key: string;
  title: string;
  status: string;
  kind: string;
}

class Acc implements Totals {
  input_tokens = 0;
  output_tokens = 0;
  cache_write_tokens = 0;
  cache_read_tokens = 0;
  total_tokens = 0;
  cost_usd: number | null = null;
  unpriced: { tokens: number; models: string[] } | null = null;
  records = 0;

  add(r: TokenCounts & { records: number; model: string | null }, prices: PriceTable, sign = 1): void {
    this.input_tokens += sign * r.input_tokens;
    this.output_tokens += sign * r.output_tokens;
    this.cache_write_tokens += sign * r.cache_write_tokens;
    this.cache_read_tokens += sign * r.cache_read_tokens;
    const tokens = r.input_tokens + r.output_tokens + r.cache_write_tokens + r.cache_read_tokens;
    this.total_tokens += sign * tokens;
    this.records += sign * r.records;
    const hit = prices.priceOf(r.model);
    if (hit) this.cost_usd = (this.cost_usd ?? 0) + sign * costAt(hit.price, r);
    else {
      this.unpriced ??= { tokens: 0, models: [] };
      this.unpriced.tokens += sign * tokens;
      const name = r.model ?? '(unknown model)';
      if (!this.unpriced.models.includes(name)) this.unpriced.models.push(name);
    }
  }

  done(): Totals {
    const round = (v: number) => Math.round(v * 1e6) / 1e6;
    const unpriced = this.unpriced && this.unpriced.tokens > 0 ? this.unpriced : null;
    return {
      input_tokens: this.input_tokens,
      output_tokens: this.output_tokens,
      cache_write_tokens: this.cache_write_tokens,
      cache_read_tokens: this.cache_read_tokens,
      total_tokens: this.total_tokens,
      cost_usd: this.cost_usd === null ? null : round(Math.max(0, this.cost_usd)),
      unpriced: unpriced ? { tokens: unpriced.tokens, models: [...unpriced.models].sort() } : null,
      records: this.records,
    };
  }
}

const SEGMENT_GROUP: Record<GroupBy, GroupExpr> = {
  task: 'model',
  kind: 'model',
  model: 'model',
  agent: 'agent',
  day: 'day',
  week: 'week',
};

export interface ReportDeps {
  db: Db;
  store: UsageStore;
  prices: PriceTable;
  /** A claim's agent session as the usage records name it (an MCP session → the hook session it named). */
  canonical: (agent: string) => string;
  budgetUsd: () => number | null;
}

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i] as number;
}

export function costReport(deps: ReportDeps, input: CostReportInput, taskFilter: number | null): CostReport {
  const { store, prices, db } = deps;
  const groupBy = input.group_by;
  const conds: string[] = [];
  const params: unknown[] = [];
  if (input.agent_session !== undefined) {
    conds.push('agent_session = ?');
    params.push(input.agent_session);
  }
  if (input.since !== undefined) {
    conds.push('at >= ?');
    params.push(input.since);
  }
  const base = conds.length > 0 ? conds.join(' AND ') : '1';
  const groups = new Map<string, { acc: Acc; key: string | null; client?: string | null }>();
  const total = new Acc();
  const into = (key: string | null, row: SumRow, sign = 1) => {
    const k = key ?? '\u0000';
    let g = groups.get(k);
    if (!g) {
      g = { acc: new Acc(), key };
      groups.set(k, g);
    }
    g.acc.add(row, prices, sign);
  };

  const tasks = new Map<number, TaskRow>();
  for (const t of db.prepare('SELECT id, key, title, status, kind FROM tasks').all() as TaskRow[])
    tasks.set(t.id, t);
  const needSegments = taskFilter !== null || groupBy === 'task' || groupBy === 'kind';

  if (!needSegments) {
    for (const row of store.sums(SEGMENT_GROUP[groupBy], base, params)) {
      const key = groupBy === 'model' ? row.model : row.g === null ? null : String(row.g);
      into(key, row);
      total.add(row, prices);
    }
  } else {
    const segments = readSegments(db)
      .filter((s) => taskFilter === null || s.task === taskFilter)
      .map((s) => ({ ...s, agent: deps.canonical(s.agent) }))
      .filter((s) => input.agent_session === undefined || s.agent === input.agent_session);
    const keyOf = (s: Segment, row: SumRow): string | null => {
      if (groupBy === 'task') return tasks.get(s.task)?.key ?? `TASK-${s.task}`;
      if (groupBy === 'kind') return tasks.get(s.task)?.kind ?? null;
      if (groupBy === 'model') return row.model;
      return row.g === null ? null : String(row.g);
    };
    // What segments took, per agent and model: the rest of an agent's usage is outside any task.
    const taken = new Map<string, SumRow>();
    for (const s of segments) {
      const where = `${base} AND agent_session = ? AND at >= ?${Number.isFinite(s.end) ? ' AND at < ?' : ''}`;
      const p = [...params, s.agent, s.start, ...(Number.isFinite(s.end) ? [s.end] : [])];
      for (const row of store.sums(SEGMENT_GROUP[groupBy], where, p)) {
        into(keyOf(s, row), row);
        total.add(row, prices);
        if (taskFilter === null) {
          const k = `${s.agent}\u0000${row.model ?? ''}`;
          const t = taken.get(k);
          if (t) {
            t.input_tokens += row.input_tokens;
            t.output_tokens += row.output_tokens;
            t.cache_write_tokens += row.cache_write_tokens;
            t.cache_read_tokens += row.cache_read_tokens;
            t.records += row.records;
          } else taken.set(k, { ...row, g: s.agent });
        }
      }
    }
    if (taskFilter === null) {
      // The sessions' own usage: every agent's sums minus what its tasks took.
      for (const row of store.sums('agent', base, params)) {
        const t = taken.get(`${row.g}\u0000${row.model ?? ''}`);
        const rest: SumRow = t
          ? {
              ...row,
              input_tokens: row.input_tokens - t.input_tokens,
              output_tokens: row.output_tokens - t.output_tokens,
              cache_write_tokens: row.cache_write_tokens - t.cache_write_tokens,
              cache_read_tokens: row.cache_read_tokens - t.cache_read_tokens,
              records: row.records - t.records,
            }
          : row;
        if (
          rest.records <= 0 &&
          rest.input_tokens + rest.output_tokens + rest.cache_write_tokens + rest.cache_read_tokens <= 0
        )
          continue;
        into(null, rest);
        total.add(rest, prices);
      }
    }
  }

  const budgetUsd = deps.budgetUsd();
  const byKey = new Map<string, TaskRow>();
  for (const t of tasks.values()) byKey.set(t.key, t);
  const out: CostGroup[] = [...groups.values()].map(({ acc, key }) => {
    const totals = acc.done();
    const g: CostGroup = {
      key,
      label: key ?? (groupBy === 'task' || groupBy === 'kind' ? '(no task)' : '(none)'),
      ...totals,
    };
    if (groupBy === 'task') {
      const t = key === null ? undefined : byKey.get(key);
      g.task = t
        ? {
            id: t.key,
            title: t.title,
            status: t.status,
            kind: t.kind,
            over_budget: budgetUsd !== null && (totals.cost_usd ?? 0) > budgetUsd,
          }
        : null;
      if (t) g.label = `${t.key} ${t.title}`;
    }
    return g;
  });
  out.sort(
    (a, b) =>
      (b.cost_usd ?? -1) - (a.cost_usd ?? -1) ||
      b.total_tokens - a.total_tokens ||
      String(a.key).localeCompare(String(b.key)),
  );
  if (groupBy === 'day' || groupBy === 'week') out.sort((a, b) => String(a.key).localeCompare(String(b.key)));

  // Per completed task and over budget are the tasks' figures whatever the grouping: another grouping
  // asks the task grouping for them. A budget is a task's whole cost, so `over` ignores `since`.
  let completed: CostReport['completed_tasks'];
  let over: string[];
  if (groupBy === 'task') {
    const costs = out
      .filter(
        (g) => g.task && (g.task.status === 'complete' || g.task.status === 'archive') && g.cost_usd !== null,
      )
      .map((g) => g.cost_usd as number)
      .sort((a, b) => a - b);
    completed = {
      tasks: costs.length,
      median_cost_usd: percentile(costs, 0.5),
      p85_cost_usd: percentile(costs, 0.85),
    };
    over =
      input.since === undefined
        ? out.filter((g) => g.task?.over_budget).map((g) => g.task?.id as string)
        : costReport(deps, { ...input, since: undefined }, taskFilter).budget.over;
  } else {
    const byTask = costReport(deps, { ...input, group_by: 'task' }, taskFilter);
    completed = byTask.completed_tasks;
    over = byTask.budget.over;
  }
  return {
    group_by: groupBy,
    total: total.done(),
    groups: out,
    completed_tasks: completed,
    budget: { task_usd: budgetUsd, over },
  };
}
