// Records every tool call, from MCP or REST. A call costs a few numbers written into a batch
// (call-batch.ts); every FLUSH_MS (or sooner when it fills) the batch goes to the writer thread
// (call-writer.ts), so recording never waits on the disk and never runs an INSERT on the thread that
// answers calls. Counters for /metrics are kept in memory since the process started, as Prometheus
// expects.
import type { Logger } from 'pino';
import type { Envelope } from '../../shared/envelope/index.ts';
import type { CalledTool, CallerInfo } from '../caller.ts';
import type { Db, FileIdentity } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import { CallBatch, Origins } from './call-batch.ts';
import { CallWriter } from './call-writer.ts';
import { LatencyHistogram } from './histogram.ts';

/** What the live stream says about a call (`tool-called`). */
export interface ToolCalledEvent {
  tool: string;
  transport: CallerInfo['transport'];
  mcp_session: string | null;
  client_name: string | null;
  agent_session: string | null;
  duration_ms: number;
  ok: boolean;
  error_category: string | null;
  truncated: boolean;
}

/** One recorded call as a hub tells its team (team_tool_calls, server/agents/team.ts). */
export interface SharedCall {
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
/** A tool's counters for /metrics: calls by transport and outcome (`ok` or the error category), latency. */
class ToolCounters {
  readonly histogram = new LatencyHistogram();
  readonly outcomes: Record<CallerInfo['transport'], Map<string, number>> = {
    mcp: new Map(),
    rest: new Map(),
    internal: new Map(),
  };
}

export class CallRecorder {
  private readonly batch = new CallBatch(FLUSH_ROWS);
  private readonly origins = new Origins(() => this.post());
  private timer: NodeJS.Timeout | undefined;
  private readonly retentionTimer: NodeJS.Timeout;
  private readonly writer: CallWriter;
  /** Rows dropped because the database refused writes for too long. */
  dropped = 0;
  /** Whether rows are written to the database (the observability module's switch). Counters always run. */
  persist: () => boolean = () => true;
  /** Where each recorded call goes too: the team's outbox (unset without a team: nothing more is done). */
  share: ((call: SharedCall) => void) | undefined;
  /** In-memory counters for /metrics, per tool. */
  private readonly counters = new Map<string, ToolCounters>();

  constructor(
    private readonly db: Db,
    dbPath: string,
    private readonly events: EventBus,
    private readonly logger: Logger,
    private readonly retention: RetentionPolicy = DEFAULT_RETENTION,
    private readonly now: () => number = Date.now,
    busyTimeoutMs = 5_000,
    dbIdentity?: FileIdentity,
  ) {
    this.writer = new CallWriter({
      dbPath,
      dbIdentity,
      busyTimeoutMs,
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

  /** Calls by tool, transport and outcome since the process started. */
  callCounts(): { tool: string; transport: string; outcome: string; calls: number }[] {
    const out: { tool: string; transport: string; outcome: string; calls: number }[] = [];
    for (const [tool, counters] of this.counters) {
      for (const [transport, outcomes] of Object.entries(counters.outcomes)) {
        for (const [outcome, calls] of outcomes) out.push({ tool, transport, outcome, calls });
      }
    }
    return out;
  }

  /** Latency per tool since the process started. */
  latencies(): [tool: string, histogram: LatencyHistogram][] {
    return [...this.counters].map(([tool, counters]) => [tool, counters.histogram]);
  }

  /** Starts the writer thread (otherwise it starts with the first batch). */
  start(): void {
    this.writer.start();
  }

  /** Called by the adapters once the answer is serialised. */
  record(
    tool: CalledTool,
    caller: CallerInfo,
    input: unknown,
    envelope: Envelope,
    startedAt: number,
    durationMs: number,
    bytes: number,
  ): void {
    const given = (input as { agent_session?: unknown } | null)?.agent_session;
    const agentSession = typeof given === 'string' && given.length <= 200 ? given : null;
    const errorCategory = envelope.ok ? null : envelope.error.category;
    const meta = envelope.ok ? (envelope.data as { meta?: { truncated?: unknown } } | null)?.meta : undefined;
    const truncated = meta?.truncated === true;
    const durationRounded = Math.round(durationMs * 1000) / 1000;

    let counters = this.counters.get(tool.name);
    if (!counters) {
      counters = new ToolCounters();
      this.counters.set(tool.name, counters);
    }
    const outcomes = counters.outcomes[caller.transport];
    const outcome = errorCategory ?? 'ok';
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    counters.histogram.observe(durationMs / 1000);

    if (this.persist()) {
      const origin = this.origins.idOf(tool, caller);
      this.batch.push(startedAt, origin, durationRounded, errorCategory, bytes, truncated, agentSession);
      if (this.batch.full) this.post();
      else if (!this.timer) {
        this.timer = setTimeout(() => this.post(), FLUSH_MS);
        this.timer.unref();
      }
      this.share?.({
        at: startedAt,
        tool: tool.name,
        module: tool.module,
        transport: caller.transport,
        mcp_session: caller.mcpSessionId ?? null,
        client_name: caller.clientName ?? null,
        client_version: caller.clientVersion ?? null,
        agent_session: agentSession,
        duration_ms: durationRounded,
        ok: envelope.ok,
        error_category: errorCategory,
        response_bytes: bytes,
        truncated,
      });
    }
    this.events.publish<ToolCalledEvent>('tool-called', {
      tool: tool.name,
      transport: caller.transport,
      mcp_session: caller.mcpSessionId ?? null,
      client_name: caller.clientName ?? null,
      agent_session: agentSession,
      ok: envelope.ok,
      error_category: errorCategory,
      duration_ms: durationRounded,
      truncated,
    });
  }

  /**
   * Makes every call recorded so far visible in tool_calls: hands the pending batch to the writer and
   * waits (at most `settleMs`) until it is committed. Queries that read tool_calls call this first; the
   * bound keeps a slow disk from holding the thread that answers everyone.
   */
  flush(settleMs = SETTLE_MS): void {
    this.post();
    this.writer.settle(settleMs);
  }

  /** Hands the pending batch to the writer thread without waiting. */
  private post(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.batch.count === 0) return;
    this.writer.write({ ...this.batch.take(), ...this.origins.takeFresh() });
  }

  applyRetention(): number {
    this.flush();
    const cutoff = this.now() - this.retention.maxAgeMs;
    const byAge = this.db.prepare('DELETE FROM tool_call_rows WHERE at < ?').run(cutoff).changes;
    const maxId = (this.db.prepare('SELECT max(id) FROM tool_call_rows').pluck().get() as number | null) ?? 0;
    const byCount = this.db
      .prepare('DELETE FROM tool_call_rows WHERE id <= ?')
      .run(maxId - this.retention.maxRows).changes;
    // An origin whose latest call is older than every row left names none of them. (The writer thread
    // re-creates one it still uses, under the same id.)
    this.db
      .prepare(
        'DELETE FROM tool_call_origins WHERE last_at < coalesce((SELECT min(at) FROM tool_call_rows), ?)',
      )
      .run(Number.MAX_SAFE_INTEGER);
    const logs = this.db.prepare('DELETE FROM log_events WHERE at < ?').run(cutoff).changes;
    const sessions = this.db
      .prepare('DELETE FROM mcp_sessions WHERE ended_at IS NOT NULL AND ended_at < ?')
      .run(cutoff).changes;
    return byAge + byCount + logs + sessions;
  }

  /** Writes what is pending, then lets the writer thread go until the next call (an idle project). */
  release(): boolean {
    this.flush();
    return this.writer.release();
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
