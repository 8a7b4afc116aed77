// Records every tool call, from MCP or REST. A call costs a push onto an in-memory batch; the batch is
// written in one transaction every FLUSH_MS (or sooner when it fills), so recording never waits on the
// disk. Counters for /metrics are kept in memory since the process started, as Prometheus expects.
import type { Statement } from 'better-sqlite3';
import type { Logger } from 'pino';
import type { Envelope } from '../../shared/envelope/index.ts';
import type { Db } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import type { CallerInfo } from '../tools/context.ts';
import type { AnyTool } from '../tools/define.ts';
import { LatencyHistogram } from './histogram.ts';

export interface ToolCallRecord {
  at: number;
  tool: string;
  module: string;
  transport: CallerInfo['transport'];
  mcp_session: string | null;
  client_name: string | null;
  client_version: string | null;
  agent_session: string | null;
  duration_ms: number;
  ok: boolean;
  error_category: string | null;
  response_bytes: number;
  truncated: boolean;
}

export interface RetentionPolicy {
  maxAgeMs: number;
  maxRows: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = { maxAgeMs: 7 * 24 * 3600_000, maxRows: 200_000 };
const FLUSH_MS = 250;
const FLUSH_ROWS = 500;
/** Rows per INSERT statement: one native call and one statement step for many rows. */
const ROWS_PER_INSERT = 50;
const COLUMNS = `at, tool, module, transport, mcp_session, client_name, client_version, agent_session,
  duration_ms, ok, error_category, response_bytes, truncated`;
const ROW_PARAMS = `(${Array(13).fill('?').join(', ')})`;
/** Rows kept in memory while the database refuses writes; beyond it the oldest are dropped and counted. */
const MAX_PENDING = 20_000;

export type CallListener = (record: ToolCallRecord) => void;

export class CallRecorder {
  private pending: ToolCallRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly retentionTimer: NodeJS.Timeout;
  /** INSERT statements by row count, prepared on first use (a full chunk, then the odd remainders). */
  private readonly inserts = new Map<number, Statement>();
  private readonly listeners = new Set<CallListener>();
  /** Rows dropped because the database refused writes for too long. */
  dropped = 0;
  /** Whether rows are written to the database (the observability module's switch). Counters always run. */
  persist: () => boolean = () => true;

  // In-memory counters for /metrics.
  readonly calls = new Map<string, number>(); // `${tool}\t${transport}\t${outcome}`
  readonly latency = new Map<string, LatencyHistogram>(); // per tool

  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly logger: Logger,
    private readonly retention: RetentionPolicy = DEFAULT_RETENTION,
    private readonly now: () => number = Date.now,
  ) {
    this.retentionTimer = setInterval(() => this.applyRetention(), 5 * 60_000);
    this.retentionTimer.unref();
  }

  onCall(listener: CallListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called by the adapters once the answer is serialised. */
  record(
    tool: AnyTool,
    caller: CallerInfo,
    input: unknown,
    envelope: Envelope,
    startedAt: number,
    durationMs: number,
    bytes: number,
  ): void {
    const agentSession = (input as { agent_session?: unknown } | null)?.agent_session;
    const meta = envelope.ok ? (envelope.data as { meta?: { truncated?: unknown } } | null)?.meta : undefined;
    const record: ToolCallRecord = {
      at: startedAt,
      tool: tool.name,
      module: tool.module,
      transport: caller.transport,
      mcp_session: caller.mcpSessionId ?? null,
      client_name: caller.clientName ?? null,
      client_version: caller.clientVersion ?? null,
      agent_session: typeof agentSession === 'string' && agentSession.length <= 200 ? agentSession : null,
      duration_ms: Math.round(durationMs * 1000) / 1000,
      ok: envelope.ok,
      error_category: envelope.ok ? null : envelope.error.category,
      response_bytes: bytes,
      truncated: meta?.truncated === true,
    };
    const outcome = record.ok ? 'ok' : (record.error_category ?? 'error');
    const key = `${record.tool}\t${record.transport}\t${outcome}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    let histogram = this.latency.get(record.tool);
    if (!histogram) {
      histogram = new LatencyHistogram();
      this.latency.set(record.tool, histogram);
    }
    histogram.observe(durationMs / 1000);

    if (this.persist()) {
      this.pending.push(record);
      if (this.pending.length > MAX_PENDING) {
        this.pending.shift();
        this.dropped++;
      }
      if (this.pending.length >= FLUSH_ROWS) this.flush();
      else if (!this.timer) {
        this.timer = setTimeout(() => this.flush(), FLUSH_MS);
        this.timer.unref();
      }
    }
    for (const listener of this.listeners) listener(record);
    this.events.publish('tool-called', {
      tool: record.tool,
      transport: record.transport,
      mcp_session: record.mcp_session,
      client_name: record.client_name,
      agent_session: record.agent_session,
      ok: record.ok,
      error_category: record.error_category,
      duration_ms: record.duration_ms,
      truncated: record.truncated,
    });
  }

  /** Writes the pending batch now. Queries that read tool_calls call this first. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    try {
      this.db
        .transaction(() => {
          for (let from = 0; from < batch.length; from += ROWS_PER_INSERT) {
            const rows = batch.slice(from, from + ROWS_PER_INSERT);
            const values: unknown[] = [];
            for (const r of rows) {
              values.push(
                r.at,
                r.tool,
                r.module,
                r.transport,
                r.mcp_session,
                r.client_name,
                r.client_version,
                r.agent_session,
                r.duration_ms,
                r.ok ? 1 : 0,
                r.error_category,
                r.response_bytes,
                r.truncated ? 1 : 0,
              );
            }
            this.insertFor(rows.length).run(values);
          }
        })
        .immediate();
    } catch (err) {
      // Keep the rows and try again later: a locked or full database must not lose what was recorded.
      this.pending = batch.concat(this.pending).slice(-MAX_PENDING);
      this.logger.warn({ err, scope: 'observability' }, 'tool calls could not be recorded yet; retrying');
      this.timer = setTimeout(() => this.flush(), FLUSH_MS * 8);
      this.timer.unref();
    }
  }

  private insertFor(rows: number): Statement {
    let statement = this.inserts.get(rows);
    if (!statement) {
      statement = this.db.prepare(
        `INSERT INTO tool_calls (${COLUMNS}) VALUES ${Array(rows).fill(ROW_PARAMS).join(', ')}`,
      );
      this.inserts.set(rows, statement);
    }
    return statement;
  }

  applyRetention(): number {
    this.flush();
    const cutoff = this.now() - this.retention.maxAgeMs;
    const byAge = this.db.prepare('DELETE FROM tool_calls WHERE at < ?').run(cutoff).changes;
    const maxId = (this.db.prepare('SELECT max(id) FROM tool_calls').pluck().get() as number | null) ?? 0;
    const byCount = this.db
      .prepare('DELETE FROM tool_calls WHERE id <= ?')
      .run(maxId - this.retention.maxRows).changes;
    const logs = this.db.prepare('DELETE FROM log_events WHERE at < ?').run(cutoff).changes;
    const sessions = this.db
      .prepare('DELETE FROM mcp_sessions WHERE ended_at IS NOT NULL AND ended_at < ?')
      .run(cutoff).changes;
    return byAge + byCount + logs + sessions;
  }

  close(): void {
    clearInterval(this.retentionTimer);
    this.flush();
    if (this.timer) clearTimeout(this.timer);
  }
}
