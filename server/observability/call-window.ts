// Per-tool call metrics over a sliding window of tool_calls, kept up to date instead of recomputed.
// cos_metrics used to read every row of its window and sort it on each call: at a few hundred calls a
// second a five-minute window holds tens of thousands of rows, 20–70 ms of the event loop per call.
// A CallWindow reads only the rows added since its last answer, drops the rows that left the window by
// time and keeps each tool's durations sorted, so an answer costs what changed since the last one (and
// a count over the index on `at`, which notices rows deleted otherwise, by retention, and starts over).
// Its answers are exactly toolMetricsScan's (the tests compare them).
import type { Db } from '../db/open.ts';

export interface ToolMetrics {
  tool: string;
  calls: number;
  errors: number;
  error_rate: number;
  errors_by_category: Record<string, number>;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  truncation_rate: number;
  mean_response_bytes: number;
}

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** What the metrics of one tool are made of. */
export interface ToolTally {
  /** Ascending. */
  durations: number[];
  errors: number;
  byCategory: Map<string, number>;
  truncated: number;
  bytes: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The metrics rows, most called first, from each tool's tally. */
export function metricsOf(tallies: Map<string, ToolTally>, tool?: string): ToolMetrics[] {
  const out: ToolMetrics[] = [];
  for (const [name, t] of tallies) {
    if (tool !== undefined && name !== tool) continue;
    const n = t.durations.length;
    if (n === 0) continue;
    const byCategory: Record<string, number> = {};
    for (const c of [...t.byCategory.keys()].sort()) byCategory[c] = t.byCategory.get(c)!;
    out.push({
      tool: name,
      calls: n,
      errors: t.errors,
      error_rate: round(t.errors / n),
      errors_by_category: byCategory,
      p50_ms: round(percentile(t.durations, 50)),
      p95_ms: round(percentile(t.durations, 95)),
      p99_ms: round(percentile(t.durations, 99)),
      max_ms: round(t.durations[n - 1] ?? 0),
      truncation_rate: round(t.truncated / n),
      mean_response_bytes: Math.round(t.bytes / n),
    });
  }
  return out.sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
}

type CallRow = [
  id: number,
  at: number,
  tool: string,
  d: number,
  ok: number,
  c: string | null,
  t: number,
  b: number,
];

/** First index in ascending `xs` whose value is not below `x`. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const COLUMNS = 'id, at, tool, duration_ms, ok, error_category, truncated, response_bytes';

export class CallWindow {
  /** The rows in the window, ascending by (at, id) from `head` on. */
  private rows: CallRow[] = [];
  private head = 0;
  private readonly tallies = new Map<string, ToolTally>();
  private readonly names = new Map<string, string>();
  /** Rows with an id up to this one have been seen. */
  private lastId = 0;
  /** `since` of the last answer; an earlier one means starting over. */
  private since = Number.POSITIVE_INFINITY;
  private readonly all;
  private readonly after;
  private readonly maxId;
  private readonly countSince;

  constructor(
    db: Db,
    /** More rows than this in the window: answer null (the caller scans instead) rather than hold them. */
    private readonly maxRows: number,
  ) {
    this.all = db
      .prepare<[number], CallRow>(`SELECT ${COLUMNS} FROM tool_calls WHERE at >= ? ORDER BY at, id`)
      .raw();
    this.after = db
      .prepare<[number], CallRow>(`SELECT ${COLUMNS} FROM tool_calls WHERE id > ? ORDER BY id`)
      .raw();
    this.maxId = db.prepare<[], number | null>('SELECT max(id) FROM tool_calls').pluck();
    this.countSince = db.prepare<[number], number>('SELECT count(*) FROM tool_calls WHERE at >= ?').pluck();
  }

  /** Rows in the window now. */
  get size(): number {
    return this.rows.length - this.head;
  }

  /** Metrics of the calls that started at or after `since`; null when the window is over maxRows. */
  metrics(since: number, tool?: string): ToolMetrics[] | null {
    const maxId = this.maxId.get() ?? 0;
    if (since < this.since || maxId < this.lastId) this.reset();
    if (this.rows.length === 0 && this.lastId === 0) {
      for (const r of this.all.iterate(since)) {
        if (this.size >= this.maxRows) {
          this.reset();
          return null;
        }
        this.add(r);
      }
      this.lastId = maxId;
    } else {
      for (const r of this.after.iterate(this.lastId)) {
        this.lastId = r[0];
        if (r[1] >= since) this.add(r);
        if (this.size > this.maxRows) {
          this.reset();
          return null;
        }
      }
    }
    this.since = since;
    while (this.head < this.rows.length && this.rows[this.head]![1] < since)
      this.remove(this.rows[this.head++]!);
    if (this.countSince.get(since) !== this.size) {
      // Rows left the table some other way than by time (retention's row cap, a cleared table): the
      // count is cheap (the index on at), and a rebuild is what a scan costs anyway.
      this.reset();
      return this.metrics(since, tool);
    }
    if (this.head > 1024 && this.head > this.rows.length / 2) {
      this.rows = this.rows.slice(this.head);
      this.head = 0;
    }
    return metricsOf(this.tallies, tool);
  }

  private reset(): void {
    this.rows = [];
    this.head = 0;
    this.tallies.clear();
    this.lastId = 0;
    this.since = Number.POSITIVE_INFINITY;
  }

  private add(r: CallRow): void {
    // Rows arrive by id; a call that started earlier than one already here is rare and near the end.
    let i = this.rows.length;
    while (
      i > this.head &&
      (this.rows[i - 1]![1] > r[1] || (this.rows[i - 1]![1] === r[1] && this.rows[i - 1]![0] > r[0]))
    )
      i--;
    if (i === this.rows.length) this.rows.push(r);
    else this.rows.splice(i, 0, r);
    // One string per tool name, not one per row.
    let tool = this.names.get(r[2]);
    if (tool === undefined) {
      tool = r[2];
      this.names.set(tool, tool);
    }
    r[2] = tool;
    const [, , , d, ok, c, t, b] = r;
    let tally = this.tallies.get(tool);
    if (tally === undefined) {
      tally = { durations: [], errors: 0, byCategory: new Map(), truncated: 0, bytes: 0 };
      this.tallies.set(tool, tally);
    }
    tally.durations.splice(lowerBound(tally.durations, d), 0, d);
    if (!ok) {
      tally.errors++;
      const key = c ?? 'unknown';
      tally.byCategory.set(key, (tally.byCategory.get(key) ?? 0) + 1);
    }
    tally.truncated += t;
    tally.bytes += b;
  }

  private remove(r: CallRow): void {
    const [, , tool, d, ok, c, t, b] = r;
    const tally = this.tallies.get(tool);
    if (tally === undefined) return;
    tally.durations.splice(lowerBound(tally.durations, d), 1);
    if (!ok) {
      tally.errors--;
      const key = c ?? 'unknown';
      const left = (tally.byCategory.get(key) ?? 1) - 1;
      if (left === 0) tally.byCategory.delete(key);
      else tally.byCategory.set(key, left);
    }
    tally.truncated -= t;
    tally.bytes -= b;
    if (tally.durations.length === 0) this.tallies.delete(tool);
  }
}
