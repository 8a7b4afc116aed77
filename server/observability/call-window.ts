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

/** The 1-based nearest rank of percentile `p` among `n` ascending values. */
const rankOf = (n: number, p: number) => Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[rankOf(sorted.length, p) - 1]!;
}

/** What the metrics of one tool are made of. */
export interface ToolTally {
  /** Ascending. */
  durations: ArrayLike<number>;
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

/** First index below `n` in ascending `xs` whose value is not below `x`. */
function lowerBound(xs: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A growable ascending list of numbers in one Float64Array (8 bytes a value). */
class SortedNumbers {
  private a = new Float64Array(64);
  private n = 0;

  get length(): number {
    return this.n;
  }

  insert(x: number): void {
    if (this.n === this.a.length) {
      const bigger = new Float64Array(this.a.length * 2);
      bigger.set(this.a);
      this.a = bigger;
    }
    const i = lowerBound(this.a, this.n, x);
    this.a.copyWithin(i + 1, i, this.n);
    this.a[i] = x;
    this.n++;
  }

  remove(x: number): void {
    const i = lowerBound(this.a, this.n, x);
    this.a.copyWithin(i, i + 1, this.n);
    this.n--;
  }

  view(): Float64Array {
    return this.a.subarray(0, this.n);
  }
}

/**
 * The window's calls, one typed array per column (37 bytes a call, against some 280 as JavaScript
 * arrays), ascending by (at, id) between `head` and `end`.
 */
class CallColumns {
  capacity = 1024;
  head = 0;
  end = 0;
  id = new Float64Array(this.capacity);
  at = new Float64Array(this.capacity);
  d = new Float64Array(this.capacity);
  bytes = new Float64Array(this.capacity);
  tool = new Uint16Array(this.capacity);
  /** -1: the call answered ok; otherwise the index of its error category. */
  category = new Int16Array(this.capacity);
  truncated = new Uint8Array(this.capacity);

  private columns() {
    return [this.id, this.at, this.d, this.bytes, this.tool, this.category, this.truncated] as const;
  }

  /** Makes room for one more row: moves the rows down to 0, or doubles the arrays. */
  private room(): void {
    if (this.end < this.capacity) return;
    if (this.head > 0) {
      for (const c of this.columns()) c.copyWithin(0, this.head, this.end);
      this.end -= this.head;
      this.head = 0;
      if (this.end < this.capacity) return;
    }
    this.capacity *= 2;
    const grow = <A extends Float64Array | Uint16Array | Int16Array | Uint8Array>(a: A): A => {
      const b = new (a.constructor as new (n: number) => A)(this.capacity);
      b.set(a);
      return b;
    };
    this.id = grow(this.id);
    this.at = grow(this.at);
    this.d = grow(this.d);
    this.bytes = grow(this.bytes);
    this.tool = grow(this.tool);
    this.category = grow(this.category);
    this.truncated = grow(this.truncated);
  }

  /** Inserts a row in (at, id) order: nearly always at the end, as calls are recorded in order. */
  insert(
    id: number,
    at: number,
    d: number,
    bytes: number,
    tool: number,
    category: number,
    truncated: number,
  ): void {
    this.room();
    let i = this.end;
    while (i > this.head && (this.at[i - 1]! > at || (this.at[i - 1] === at && this.id[i - 1]! > id))) i--;
    if (i < this.end) for (const c of this.columns()) c.copyWithin(i + 1, i, this.end);
    this.id[i] = id;
    this.at[i] = at;
    this.d[i] = d;
    this.bytes[i] = bytes;
    this.tool[i] = tool;
    this.category[i] = category;
    this.truncated[i] = truncated;
    this.end++;
  }
}

const COLUMNS = 'id, at, tool, duration_ms, ok, error_category, truncated, response_bytes';

export class CallWindow {
  private rows = new CallColumns();
  private readonly tallies = new Map<string, ToolTally & { sorted: SortedNumbers }>();
  /** Tool names and error categories by index (the columns hold indexes). */
  private readonly tools: string[] = [];
  private readonly categories: string[] = [];
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
    // These two need no origin column: they read tool_call_rows itself, since SQLite does not drop the
    // view's join to tool_call_origins for them (a lookup per row of the window, on every answer).
    this.maxId = db.prepare<[], number | null>('SELECT max(id) FROM tool_call_rows').pluck();
    this.countSince = db
      .prepare<[number], number>('SELECT count(*) FROM tool_call_rows WHERE at >= ?')
      .pluck();
  }

  /** Rows in the window now. */
  get size(): number {
    return this.rows.end - this.rows.head;
  }

  /** Metrics of the calls that started at or after `since`; null when the window is over maxRows. */
  metrics(since: number, tool?: string): ToolMetrics[] | null {
    const maxId = this.maxId.get() ?? 0;
    if (since < this.since || maxId < this.lastId) this.reset();
    this.since = since;
    const rows = this.rows;
    while (rows.head < rows.end && rows.at[rows.head]! < since) this.remove(rows.head++);
    const fresh = this.lastId === 0 && this.size === 0;
    for (const r of fresh ? this.all.iterate(since) : this.after.iterate(this.lastId)) {
      if (r[1] >= since) this.add(r);
      if (this.size > this.maxRows) {
        this.reset();
        return null;
      }
    }
    this.lastId = maxId;
    if (this.countSince.get(since) !== this.size) {
      // Rows left the table some other way than by time (retention's row cap, a cleared table): the
      // count is cheap (the index on at), and a rebuild is what a scan costs anyway.
      this.reset();
      this.since = since;
      return this.metrics(since, tool);
    }
    for (const t of this.tallies.values()) t.durations = t.sorted.view();
    return metricsOf(this.tallies, tool);
  }

  private reset(): void {
    this.rows = new CallColumns();
    this.tallies.clear();
    this.lastId = 0;
    this.since = Number.POSITIVE_INFINITY;
  }

  private indexOf(list: string[], name: string): number {
    const i = list.indexOf(name);
    if (i >= 0) return i;
    list.push(name);
    return list.length - 1;
  }

  private add([id, at, tool, d, ok, c, t, b]: CallRow): void {
    const category = ok ? -1 : this.indexOf(this.categories, c ?? 'unknown');
    this.rows.insert(id, at, d, b, this.indexOf(this.tools, tool), category, t);
    let tally = this.tallies.get(tool);
    if (tally === undefined) {
      const sorted = new SortedNumbers();
      tally = { sorted, durations: [], errors: 0, byCategory: new Map(), truncated: 0, bytes: 0 };
      this.tallies.set(tool, tally);
    }
    this.count(tally, d, category, t, b, 1);
  }

  private remove(i: number): void {
    const r = this.rows;
    const tally = this.tallies.get(this.tools[r.tool[i]!]!);
    if (tally === undefined) return;
    this.count(tally, r.d[i]!, r.category[i]!, r.truncated[i]!, r.bytes[i]!, -1);
    if (tally.sorted.length === 0) this.tallies.delete(this.tools[r.tool[i]!]!);
  }

  private count(
    tally: ToolTally & { sorted: SortedNumbers },
    d: number,
    category: number,
    truncated: number,
    bytes: number,
    sign: 1 | -1,
  ): void {
    if (sign === 1) tally.sorted.insert(d);
    else tally.sorted.remove(d);
    if (category >= 0) {
      tally.errors += sign;
      const key = this.categories[category]!;
      const left = (tally.byCategory.get(key) ?? 0) + sign;
      if (left === 0) tally.byCategory.delete(key);
      else tally.byCategory.set(key, left);
    }
    tally.truncated += sign * truncated;
    tally.bytes += sign * bytes;
  }
}
