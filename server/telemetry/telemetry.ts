// What the hub sees of the OpenTelemetry export, without loading the SDK: the interfaces, the status
// cos_health shows, and startTelemetry, which imports the SDK (sdk.ts, a chunk of its own in the
// package) only when an OTLP endpoint is configured. Without one nothing here connects anywhere.
import type { Logger } from 'pino';
import type { EventBus } from '../events/bus.ts';
import type { MetricsSnapshot } from '../observability/prometheus.ts';
import { shownEndpoint, type TelemetrySettings } from './settings.ts';

/** One served tool call, as the hub's call path hands it over (MCP and REST alike). */
export interface ToolCallRecord {
  tool: string;
  module: string;
  transport: 'mcp' | 'rest' | 'internal';
  /** ms since the epoch, when the call arrived. */
  startedAt: number;
  durationMs: number;
  ok: boolean;
  errorCategory: string | null;
  agentSession: string | null;
  mcpSession: string | null;
  clientName: string | null;
  responseBytes: number;
  truncated: boolean;
}

/** One project's (one hub's) part of the export. */
export interface ProjectTelemetry {
  toolCall(call: ToolCallRecord): void;
  /** Exports the numbers of /metrics from this snapshot, read at each collection; returns the undo. */
  observeMetrics(snapshot: () => MetricsSnapshot): () => void;
  /** Ends the project's open session and task spans (the hub closes). */
  close(): void;
}

export interface TelemetryStatus {
  enabled: boolean;
  /** The traces endpoint (the metrics one without traces), without credentials. */
  endpoint: string | null;
  protocol: string | null;
  /** Spans the collector accepted. */
  exported: number;
  /** Spans dropped because the queue (OTEL_BSP_MAX_QUEUE_SIZE) was full: the collector is slow or away. */
  dropped: number;
  /** Spans in exports that failed (collector down, refused, timed out). */
  failed: number;
  last_error: string | null;
}

export interface Telemetry {
  /** A project's part: subscribes to its event bus (hook events, sessions, tasks, token usage). */
  project(name: string, machine: string, events: EventBus): ProjectTelemetry;
  status(): TelemetryStatus;
  /** What cos_health lists while the last export failed (the collector is down or refuses), saying what to do. */
  problem(): string | undefined;
  /** Where the export logs what it could not record (the default hub's logger, once it exists). */
  attachLogger(logger: Logger): void;
  /** Exports what is queued (bounded by the export timeout), then stops. */
  shutdown(): Promise<void>;
}

/** The status when nothing is exported: off, or why the configured endpoint is not used. */
export function idleStatus(settings: TelemetrySettings): TelemetryStatus {
  const target = settings.traces ?? settings.metrics;
  return {
    enabled: false,
    endpoint: target ? shownEndpoint(target.url) : null,
    protocol: target?.protocol ?? null,
    exported: 0,
    dropped: 0,
    failed: 0,
    last_error: settings.error,
  };
}

/** The SDK-backed export; undefined (and the SDK never loaded) when the settings export nothing. */
export async function startTelemetry(settings: TelemetrySettings): Promise<Telemetry | undefined> {
  if (!settings.enabled) return undefined;
  const { createSdkTelemetry } = await import('./sdk.ts');
  return createSdkTelemetry(settings);
}
