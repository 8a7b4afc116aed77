// Read side of observability: per-tool metrics over a window, the WARN+ log, and the merged timeline.
import { taskKeys } from '../board/task-keys.ts';
import type { Db } from '../db/open.ts';
import { CallWindow, metricsOf, type ToolMetrics, type ToolTally } from './call-window.ts';
import type { PublicText } from './public-text.ts';

export const WINDOWS = {
  '5m': 5 * 60_000,
  '15m': 15 * 60_000,
  '1h': 3600_000,
  '6h': 6 * 3600_000,
  '24h': 24 * 3600_000,
  '7d': 7 * 24 * 3600_000,
} as const;
export type WindowName = keyof typeof WINDOWS;

/**
 * Per-tool metrics of the calls that started at or after `since`. With `windowMs` (the tool's windows)
 * the answer comes from a CallWindow kept for this database and window length, which reads only what
 * changed since its last answer; a window holding more than MAX_WINDOW_ROWS calls is scanned instead.
 */
export function toolMetrics(db: Db, since: number, tool?: string, windowMs?: number): ToolMetrics[] {
  if (windowMs === undefined) return toolMetricsScan(db, since, tool);
  let windows = callWindows.get(db);
  if (windows === undefined) {
    windows = new Map();
    callWindows.set(db, windows);
  }
  const now = Date.now();
  // Bounded: one window per length asked for, and one nobody asked for lately is let go.
  for (const [ms, w] of windows) if (now - w.lastUsed > WINDOW_IDLE_MS) windows.delete(ms);
  let entry = windows.get(windowMs);
  if (entry === undefined) {
    entry = { window: new CallWindow(db, MAX_WINDOW_ROWS), lastUsed: now };
    windows.set(windowMs, entry);
  }
  entry.lastUsed = now;
  const rows = entry.window.metrics(since, tool);
  if (rows !== null) return rows;
  windows.delete(windowMs);
  return toolMetricsScan(db, since, tool);
}

/**
 * A CallWindow holds at most this many calls, the default retention of the whole table (about 45 bytes
 * a call: some 10 MB at most); a busier window is scanned on each call, as before.
 */
export const MAX_WINDOW_ROWS = 200_000;
const WINDOW_IDLE_MS = 10 * 60_000;
const callWindows = new WeakMap<Db, Map<number, { window: CallWindow; lastUsed: number }>>();

/** The same metrics by reading and sorting every call in the window (the reference for CallWindow). */
export function toolMetricsScan(db: Db, since: number, tool?: string): ToolMetrics[] {
  const rows = db
    .prepare(
      `SELECT tool, duration_ms AS d, ok, error_category AS c, truncated AS t, response_bytes AS b
       FROM tool_calls WHERE at >= ? ${tool ? 'AND tool = ?' : ''} ORDER BY tool, duration_ms`,
    )
    .raw()
    .all(...(tool ? [since, tool] : [since])) as [string, number, number, string | null, number, number][];
  const tallies = new Map<string, ToolTally & { durations: number[] }>();
  for (const [name, d, ok, c, t, b] of rows) {
    let tally = tallies.get(name);
    if (tally === undefined) {
      tally = { durations: [], errors: 0, byCategory: new Map(), truncated: 0, bytes: 0 };
      tallies.set(name, tally);
    }
    tally.durations.push(d);
    if (!ok) {
      tally.errors++;
      const key = c ?? 'unknown';
      tally.byCategory.set(key, (tally.byCategory.get(key) ?? 0) + 1);
    }
    tally.truncated += t;
    tally.bytes += b;
  }
  return metricsOf(tallies);
}

export interface LogFilter {
  level?: 'warn' | 'error' | 'fatal';
  scope?: string;
  since?: number;
  text?: string;
  session?: string;
  error_id?: string;
  /** Rows with an id below this (the cursor of the previous page). */
  before_id?: number;
  limit: number;
}

export interface LogRow {
  id: number;
  at: number;
  level: string;
  scope: string | null;
  message: string;
  error_id: string | null;
  session: string | null;
}

const LEVEL_RANK = { warn: 40, error: 50, fatal: 60 } as const;

/**
 * Log events, newest first. Messages pass through `text` on the way out too: rows an older hub stored
 * may hold what callers never see (it kept stacks, and paths in messages).
 */
export function queryLogs(
  db: Db,
  f: LogFilter,
  text: PublicText,
): { entries: LogRow[]; next_cursor: string | null } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (f.level) {
    where.push(`CASE level WHEN 'warn' THEN 40 WHEN 'error' THEN 50 ELSE 60 END >= ?`);
    args.push(LEVEL_RANK[f.level]);
  }
  if (f.scope) {
    where.push('scope = ?');
    args.push(f.scope);
  }
  if (f.since !== undefined) {
    where.push('at >= ?');
    args.push(f.since);
  }
  if (f.text) {
    // instr() is a plain substring test: no LIKE wildcards to escape, no FTS syntax to trip over.
    where.push('instr(lower(message), lower(?)) > 0');
    args.push(f.text);
  }
  if (f.session) {
    where.push('session = ?');
    args.push(f.session);
  }
  if (f.error_id) {
    where.push('error_id = ?');
    args.push(f.error_id);
  }
  if (f.before_id !== undefined) {
    where.push('id < ?');
    args.push(f.before_id);
  }
  const rows = db
    .prepare(
      `SELECT id, at, level, scope, message, error_id, session FROM log_events
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
    )
    .all(...args, f.limit + 1) as LogRow[];
  for (const row of rows) row.message = text.scrub(row.message);
  const more = rows.length > f.limit;
  const entries = more ? rows.slice(0, f.limit) : rows;
  return { entries, next_cursor: more ? String(entries[entries.length - 1]!.id) : null };
}

export interface TimelineEntry {
  kind: 'tool_call' | 'board' | 'log';
  id: number;
  at: number;
  summary: string;
  ok: boolean;
  detail: Record<string, unknown>;
}

function tableExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * Tool calls, board events and log events, newest first, strictly after the cursor `<at>:<kind>:<id>`
 * (the last entry of the previous page). Ties on `at` are ordered by kind, then id, both descending.
 */
export function timeline(
  db: Db,
  text: PublicText,
  limit: number,
  cursor?: string,
): { entries: TimelineEntry[]; next_cursor: string | null } {
  const [atText, kindText = '', idText] = (cursor ?? '').split(':');
  const beforeAt = cursor ? Number(atText) : Number.MAX_SAFE_INTEGER;
  const beforeId = cursor ? Number(idText) : 0;
  // For entries of kind K at exactly beforeAt: all come after the cursor when K sorts below the cursor's
  // kind, those with a smaller id when it is the same kind, none when K sorts above.
  const idBound = (kind: TimelineEntry['kind']) =>
    !cursor
      ? Number.MAX_SAFE_INTEGER
      : kind < kindText
        ? Number.MAX_SAFE_INTEGER
        : kind === kindText
          ? beforeId
          : -1;
  const take = limit + 1;
  const entries: TimelineEntry[] = [];
  for (const r of db
    .prepare(
      `SELECT id, at, tool, transport, mcp_session, client_name, agent_session, duration_ms, ok, error_category, truncated
       FROM tool_calls WHERE at < ? OR (at = ? AND id < ?) ORDER BY at DESC, id DESC LIMIT ?`,
    )
    .all(beforeAt, beforeAt, idBound('tool_call'), take) as Record<string, unknown>[]) {
    entries.push({
      kind: 'tool_call',
      id: r.id as number,
      at: r.at as number,
      summary: `${r.tool} over ${r.transport}${r.ok ? '' : ` failed: ${r.error_category}`} (${r.duration_ms} ms)`,
      ok: r.ok === 1,
      detail: { ...r, ok: r.ok === 1, truncated: r.truncated === 1 },
    });
  }
  for (const r of db
    .prepare(
      `SELECT id, at, level, scope, message, error_id, session FROM log_events
       WHERE at < ? OR (at = ? AND id < ?) ORDER BY at DESC, id DESC LIMIT ?`,
    )
    .all(beforeAt, beforeAt, idBound('log'), take) as Record<string, unknown>[]) {
    r.message = text.scrub(String(r.message));
    entries.push({
      kind: 'log',
      id: r.id as number,
      at: r.at as number,
      summary: `${r.level}: ${r.message}`,
      ok: r.level === 'warn',
      detail: r,
    });
  }
  if (tableExists(db, 'task_events')) {
    const keys = taskKeys(db);
    // Board events keep ISO times; compare in milliseconds.
    for (const r of db
      .prepare(
        `SELECT * FROM (
           SELECT seq AS id, CAST(round((julianday(at) - 2440587.5) * 86400000) AS INTEGER) AS at_ms, task_id, type,
             from_status, to_status, agent_session, source, reason FROM task_events)
         WHERE at_ms < ? OR (at_ms = ? AND id < ?) ORDER BY at_ms DESC, id DESC LIMIT ?`,
      )
      .all(beforeAt, beforeAt, idBound('board'), take) as Record<string, unknown>[]) {
      const move = r.type === 'status' ? ` ${r.from_status ?? '∅'} → ${r.to_status}` : '';
      entries.push({
        kind: 'board',
        id: r.id as number,
        at: r.at_ms as number,
        summary: `${keys.keyOf(r.task_id as number)} ${r.type}${move} (${r.source})`,
        ok: true,
        detail: r,
      });
    }
  }
  entries.sort((a, b) => b.at - a.at || (a.kind < b.kind ? 1 : a.kind > b.kind ? -1 : b.id - a.id));
  const page = entries.slice(0, limit);
  const last = page[page.length - 1];
  return {
    entries: page,
    next_cursor: entries.length > limit && last ? `${last.at}:${last.kind}:${last.id}` : null,
  };
}

export interface ErrorCounts {
  /** Tool calls that answered an error envelope. */
  failed_calls: number;
  /** Errors the hub logged (error and fatal). */
  logged_errors: number;
}

/**
 * The hub's problems since a time: the one count of them every page shows (the hub summary, the
 * Activity page), so no two places disagree about how many there were.
 */
export function errorCounts(db: Db, since: number): ErrorCounts {
  const failed_calls = db
    .prepare('SELECT count(*) FROM tool_call_rows WHERE at >= ? AND ok = 0')
    .pluck()
    .get(since) as number;
  const logged_errors = db
    .prepare("SELECT count(*) FROM log_events WHERE at >= ? AND level IN ('error', 'fatal')")
    .pluck()
    .get(since) as number;
  return { failed_calls, logged_errors };
}
