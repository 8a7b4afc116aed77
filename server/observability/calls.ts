// Records every tool call, from MCP or REST. A call costs a push onto an in-memory batch; every FLUSH_MS
// (or sooner when it fills) the batch goes to the writer thread (call-writer.ts), so recording never
// waits on the disk and never runs an INSERT on the thread that answers calls. Counters for /metrics
// are kept in memory since the process started, as Prometheus expects.
import type { Logger } from 'pino';
import type { Envelope } from '../../shared/envelope/index.ts';
import type { Db } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import type { CallerInfo } from '../tools/context.ts';
import type { AnyTool } from '../tools/define.ts';
import { CallWriter } from './call-writer.ts';
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
/** How long a query waits for the calls recorded before it to be written. */
const SETTLE_MS = 2_000;
const COLUMNS = [
  'at',
  'tool',
  'module',
  'transport',
  'mcp_session',
  'client_name',
  'client_version',
  'agent_session',
  'duration_ms',
  'ok',
  'error_category',
  'response_bytes',
  'truncated',
] as const;

export type CallListener = (record: ToolCallRecord) => void;

export class CallRecorder {
  private pending: ToolCallRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly retentionTimer: NodeJS.Timeout;
  private readonly writer: CallWriter;
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
    dbPath: string,
    private readonly events: EventBus,
    private readonly logger: Logger,
    private readonly retention: RetentionPolicy = DEFAULT_RETENTION,
    private readonly now: () => number = Date.now,
    busyTimeoutMs = 5_000,
  ) {
    this.writer = new CallWriter({
      dbPath,
      busyTimeoutMs,
      columns: COLUMNS,
      onFailure: ({ code, message, dropped }) => {
        this.dropped += dropped;
        this.logger.warn(
          { scope: 'observability', code, dropped },
          `tool calls could not be recorded yet (${message}); retrying`,
        );
      },
    });
    this.retentionTimer = setInterval(() => this.applyRetention(), 5 * 60_000);
    this.retentionTimer.unref();
  }

  onCall(listener: CallListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts the writer thread (otherwise it starts with the first batch). */
  start(): void {
    this.writer.start();
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
      if (this.pending.length >= FLUSH_ROWS) this.post();
      else if (!this.timer) {
        this.timer = setTimeout(() => this.post(), FLUSH_MS);
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

  /**
   * Makes every call recorded so far visible in tool_calls: hands the pending batch to the writer and
   * waits (at most SETTLE_MS) until it is committed. Queries that read tool_calls call this first.
   */
  flush(): void {
    this.post();
    this.writer.settle(SETTLE_MS);
  }

  /** Hands the pending batch to the writer thread without waiting. */
  private post(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const rows = this.pending.map((r) => [
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
    ]);
    this.pending = [];
    this.writer.write(rows);
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

  async close(): Promise<void> {
    clearInterval(this.retentionTimer);
    this.post();
    const unwritten = await this.writer.close();
    if (unwritten !== 0)
      this.logger.warn(
        { scope: 'observability', unwritten },
        'the hub closed with tool calls it could not record',
      );
  }
}
