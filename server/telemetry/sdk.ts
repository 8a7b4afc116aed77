// The OpenTelemetry export itself, on the official JS SDK; imported (a chunk of its own) only when an
// OTLP endpoint is configured (telemetry.ts). What it exports:
// - a span per tool call (MCP and REST): `execute_tool <tool>`, with its outcome, error category,
//   latency (the span's own duration) and project;
// - a span per agent session (`invoke_agent <client>`, from its first hook event to session_end), a
//   span per hook event inside it, a span per task in progress, and a `chat <model>` span per
//   usage-recorded event with the GenAI token counts;
// - the numbers of /metrics, read from the same snapshot (observable instruments and, for the latency
//   histogram, a metric producer).
// Export never holds an answer: spans are queued (at most OTEL_BSP_MAX_QUEUE_SIZE waiting or in flight;
// beyond that they are dropped and counted) and exported in batches with a timeout; nothing the
// collector does (down, slow, refusing) reaches the call that made the span.
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  ValueType,
} from '@opentelemetry/api';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type CollectionResult,
  DataPointType,
  type HistogramMetricData,
  MeterProvider,
  type MetricProducer,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import type { UsageRecordedData } from '../costs/service.ts';
import type { EventBus, HubEvent } from '../events/bus.ts';
import { LATENCY_BUCKETS } from '../observability/histogram.ts';
import type { MetricsSnapshot } from '../observability/prometheus.ts';
import { HUB_VERSION } from '../version.ts';
import { type SignalTarget, shownEndpoint, type TelemetrySettings } from './settings.ts';
import type { ProjectTelemetry, Telemetry, TelemetryStatus, ToolCallRecord } from './telemetry.ts';

/** Open session and task spans kept per process at most; beyond it the oldest is ended. */
const MAX_OPEN_SPANS = 2_000;
/** A session with no hook event for this long is ended (its agent went away without saying so). */
const SESSION_IDLE_MS = 30 * 60_000;
/** How long shutdown waits for the last export. */
const SHUTDOWN_MS = 5_000;
/**
 * A metrics snapshot is read once per collection, whichever part asks first (the observable instruments
 * and the latency histogram's producer run together): kept for at most this long, or half the export
 * interval when that is shorter, so the next collection always reads a new one.
 */
const SNAPSHOT_FRESH_MS = 1_000;

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];

/** What cos_health reports: exported, dropped, failed spans and the last error. */
class Counters {
  exported = 0;
  dropped = 0;
  failed = 0;
  /** Spans handed to the batch processor and not yet settled by the exporter. */
  pending = 0;
  lastError: string | null = null;
  /** Whether the last export (of either signal) failed. */
  failing = false;
}

/** An export error as one line, with anything that looks like credentials in a URL taken out. */
function describeError(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err ?? 'export failed');
  return text
    .replace(/\/\/[^/\s@]*@/g, '//')
    .replace(/\s+/g, ' ')
    .slice(0, 300);
}

class CountingSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly counts: Counters,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const settle = (result: ExportResult) => {
      this.counts.pending = Math.max(0, this.counts.pending - spans.length);
      if (result.code === 0) {
        this.counts.exported += spans.length;
        this.counts.failing = false;
      } else {
        this.counts.failed += spans.length;
        this.counts.failing = true;
        this.counts.lastError = `traces: ${describeError(result.error)}`;
      }
      done(result);
    };
    try {
      this.inner.export(spans, settle);
    } catch (err) {
      settle({ code: 1, error: err as Error });
    }
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * The bound in front of the batch processor: at most `max` spans waiting or being exported. The batch
 * processor drops beyond its own queue too, but silently and not counting what is in flight; here a
 * dropped span is counted for cos_health.
 */
class BoundedProcessor implements SpanProcessor {
  constructor(
    private readonly inner: SpanProcessor,
    private readonly counts: Counters,
    private readonly max: number,
  ) {}

  onStart(span: Parameters<SpanProcessor['onStart']>[0], parent: Context): void {
    this.inner.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    if (this.counts.pending >= this.max) {
      this.counts.dropped++;
      return;
    }
    this.counts.pending++;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

class CountingMetricExporter implements PushMetricExporter {
  constructor(
    private readonly inner: PushMetricExporter,
    private readonly counts: Counters,
  ) {}

  export(metrics: Parameters<PushMetricExporter['export']>[0], done: (result: ExportResult) => void): void {
    this.inner.export(metrics, (result) => {
      if (result.code !== 0) {
        this.counts.failing = true;
        this.counts.lastError = `metrics: ${describeError(result.error)}`;
      }
      done(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  selectAggregationTemporality = (
    type: Parameters<NonNullable<PushMetricExporter['selectAggregationTemporality']>>[0],
  ) => this.inner.selectAggregationTemporality?.(type) ?? AggregationTemporality.CUMULATIVE;
}

/**
 * A CommonJS package's named export, imported dynamically: Node gives it as a named export, the package's
 * esbuild chunk only as `default` (the module's exports object).
 */
function exported<M extends object, K extends keyof M>(mod: M, name: K): M[K] {
  return (mod[name] ?? (mod as { default?: M }).default?.[name]) as M[K];
}

async function spanExporter(target: SignalTarget): Promise<SpanExporter> {
  const options = { url: target.url, headers: target.headers, timeoutMillis: target.timeoutMs };
  if (target.protocol === 'http/json') {
    const Exporter = exported(await import('@opentelemetry/exporter-trace-otlp-http'), 'OTLPTraceExporter');
    return new Exporter(options);
  }
  const Exporter = exported(await import('@opentelemetry/exporter-trace-otlp-proto'), 'OTLPTraceExporter');
  return new Exporter(options);
}

async function metricExporter(target: SignalTarget): Promise<PushMetricExporter> {
  const options = { url: target.url, headers: target.headers, timeoutMillis: target.timeoutMs };
  if (target.protocol === 'http/json') {
    const Exporter = exported(
      await import('@opentelemetry/exporter-metrics-otlp-http'),
      'OTLPMetricExporter',
    );
    return new Exporter(options);
  }
  const Exporter = exported(await import('@opentelemetry/exporter-metrics-otlp-proto'), 'OTLPMetricExporter');
  return new Exporter(options);
}

/** GenAI semantic conventions: the provider behind each agent client the hooks know. */
function providerOf(client: string): string | undefined {
  switch (client) {
    case 'claude-code':
      return 'anthropic';
    case 'codex':
      return 'openai';
    case 'gemini':
    case 'gemini-cli':
      return 'gcp.gemini';
    default:
      return undefined;
  }
}

const hrTime = (ms: number): [number, number] => {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
};

interface OpenSpan {
  span: Span;
  lastAt: number;
}

/** Open spans by key, oldest first (a Map keeps insertion order; a touched entry moves to the end). */
class OpenSpans {
  private readonly open = new Map<string, OpenSpan>();

  constructor(private readonly max: number) {}

  get(key: string): OpenSpan | undefined {
    return this.open.get(key);
  }

  set(key: string, entry: OpenSpan, onEvict: (entry: OpenSpan) => void): void {
    this.open.delete(key);
    this.open.set(key, entry);
    while (this.open.size > this.max) {
      const [oldest, evicted] = this.open.entries().next().value as [string, OpenSpan];
      this.open.delete(oldest);
      onEvict(evicted);
    }
  }

  touch(key: string, at: number): void {
    const entry = this.open.get(key);
    if (!entry) return;
    entry.lastAt = at;
    this.open.delete(key);
    this.open.set(key, entry);
  }

  take(key: string): OpenSpan | undefined {
    const entry = this.open.get(key);
    this.open.delete(key);
    return entry;
  }

  /** Entries whose key starts with `prefix` (a project's), removed. */
  takeAll(prefix = ''): OpenSpan[] {
    const out: OpenSpan[] = [];
    for (const [key, entry] of this.open) {
      if (!key.startsWith(prefix)) continue;
      this.open.delete(key);
      out.push(entry);
    }
    return out;
  }

  /** Entries not touched since `before`, removed (oldest first, so the scan stops at the first fresh one). */
  takeIdle(before: number): OpenSpan[] {
    const out: OpenSpan[] = [];
    for (const [key, entry] of this.open) {
      if (entry.lastAt >= before) break;
      this.open.delete(key);
      out.push(entry);
    }
    return out;
  }
}

interface HookEventData {
  at: number;
  agent: string;
  client: string;
  event: string;
  kind: string;
  phase: string | null;
  tool: string | null;
  ok: boolean | null;
  summary: string;
  files: unknown[];
  machine?: string;
}

interface TaskEventData {
  task_id: string | null;
  change: string;
  old_status: string | null;
  new_status: string | null;
  agent_session: string | null;
  source: string;
  machine?: string;
}

const count = (n: unknown): number =>
  typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.round(n) : 0;

/** A task's work ends here: done, archived, parked or blocked (the span says which). */
const TASK_END_STATUSES = new Set(['complete', 'archive', 'icebox', 'blocked']);

interface MetricSource {
  project: string;
  read: () => MetricsSnapshot;
  cached?: { at: number; snapshot: MetricsSnapshot };
}

export async function createSdkTelemetry(settings: TelemetrySettings): Promise<Telemetry> {
  let log: Logger | undefined;
  const counts = new Counters();
  const resource: Resource = resourceFromAttributes({
    ...settings.resourceAttributes,
    'service.name': settings.serviceName,
    'service.version': HUB_VERSION,
  });

  let tracerProvider: BasicTracerProvider | undefined;
  if (settings.traces) {
    const exporter = new CountingSpanExporter(await spanExporter(settings.traces), counts);
    const batch = new BatchSpanProcessor(exporter, {
      maxQueueSize: settings.batch.maxQueueSize,
      maxExportBatchSize: settings.batch.maxExportBatchSize,
      scheduledDelayMillis: settings.batch.scheduledDelayMs,
      exportTimeoutMillis: settings.batch.exportTimeoutMs,
    });
    tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [new BoundedProcessor(batch, counts, settings.batch.maxQueueSize)],
    });
  }
  const tracer = tracerProvider?.getTracer('cos-hub', HUB_VERSION);

  // Metrics: one snapshot per source (the app serving /metrics) per collection.
  const sources = new Set<MetricSource>();
  const snapshotFreshMs = Math.min(SNAPSHOT_FRESH_MS, settings.metricIntervalMs / 2);
  const fresh = (source: MetricSource): MetricsSnapshot => {
    const now = Date.now();
    if (!source.cached || now - source.cached.at > snapshotFreshMs)
      source.cached = { at: now, snapshot: source.read() };
    return source.cached.snapshot;
  };
  let meterProvider: MeterProvider | undefined;
  if (settings.metrics) {
    const startTime = hrTime(performance.timeOrigin);
    const latency: MetricProducer = {
      async collect(): Promise<CollectionResult> {
        const endTime = hrTime(Date.now());
        const metric: HistogramMetricData = {
          descriptor: {
            name: 'cos_tool_call_duration_seconds',
            description: 'Time from the call arriving to its answer being serialised.',
            unit: 's',
            valueType: ValueType.DOUBLE,
          },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.HISTOGRAM,
          dataPoints: [...sources].flatMap((source) =>
            fresh(source).latencies.map((h) => ({
              startTime,
              endTime,
              attributes: { tool: h.tool, 'cos.project': source.project },
              value: {
                buckets: { boundaries: [...LATENCY_BUCKETS], counts: [...h.buckets, h.overflow] },
                sum: h.sum,
                count: h.count,
              },
            })),
          ),
        };
        return {
          resourceMetrics: {
            resource,
            scopeMetrics: [{ scope: { name: 'cos-hub', version: HUB_VERSION }, metrics: [metric] }],
          },
          errors: [],
        };
      },
    };
    meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new CountingMetricExporter(await metricExporter(settings.metrics), counts),
          exportIntervalMillis: settings.metricIntervalMs,
          exportTimeoutMillis: Math.min(settings.metricTimeoutMs, settings.metricIntervalMs),
          metricProducers: [latency],
        }),
      ],
    });
    const meter = meterProvider.getMeter('cos-hub', HUB_VERSION);
    const calls = meter.createObservableCounter('cos_tool_calls', {
      description: 'Tool calls by tool, transport and outcome (ok, or the error category).',
    });
    const errors = meter.createObservableCounter('cos_tool_errors', {
      description: 'Tool calls that answered an error, by tool and category.',
    });
    const dropped = meter.createObservableCounter('cos_calls_dropped', {
      description: 'Call records dropped because the database refused writes for too long.',
    });
    const sessions = meter.createObservableGauge('cos_mcp_sessions', {
      description: 'Open MCP sessions by lifecycle.',
    });
    const streamClients = meter.createObservableGauge('cos_stream_clients', {
      description: 'Browsers connected to the live event stream.',
    });
    const uptime = meter.createObservableGauge('cos_uptime_seconds', {
      description: 'Seconds since the hub process started.',
      unit: 's',
    });
    const eventLoop = meter.createObservableCounter('cos_event_loop_active_seconds', {
      description: 'Time the event loop spent running callbacks or blocked in them (not waiting for I/O).',
      unit: 's',
      valueType: ValueType.DOUBLE,
    });
    const memory = {
      rss: meter.createObservableGauge('process_resident_memory_bytes', { unit: 'By' }),
      heapTotal: meter.createObservableGauge('nodejs_heap_size_total_bytes', { unit: 'By' }),
      heapUsed: meter.createObservableGauge('nodejs_heap_size_used_bytes', { unit: 'By' }),
      external: meter.createObservableGauge('nodejs_external_memory_bytes', { unit: 'By' }),
    };
    meter.addBatchObservableCallback(
      (result) => {
        let processWide: MetricsSnapshot['gauges'] | undefined;
        for (const source of sources) {
          const s = fresh(source);
          const project = { 'cos.project': source.project };
          for (const c of s.calls)
            result.observe(calls, c.calls, {
              tool: c.tool,
              transport: c.transport,
              outcome: c.outcome,
              ...project,
            });
          for (const e of s.errors)
            result.observe(errors, e.calls, { tool: e.tool, category: e.category, ...project });
          result.observe(dropped, s.callsDropped, project);
          for (const [lifecycle, n] of Object.entries(s.gauges.sessions))
            result.observe(sessions, n, { lifecycle, ...project });
          result.observe(streamClients, s.gauges.streamClients, project);
          processWide ??= s.gauges;
        }
        // The process's own numbers once, whichever project reads them.
        if (!processWide) return;
        result.observe(uptime, Math.round(processWide.uptimeSeconds));
        if (processWide.eventLoopActiveMs !== undefined)
          result.observe(eventLoop, processWide.eventLoopActiveMs / 1000);
        if (processWide.memory)
          for (const key of ['rss', 'heapTotal', 'heapUsed', 'external'] as const)
            result.observe(memory[key], processWide.memory[key]);
      },
      [calls, errors, dropped, sessions, streamClients, uptime, eventLoop, ...Object.values(memory)],
    );
  }

  const sessions = new OpenSpans(MAX_OPEN_SPANS);
  const tasks = new OpenSpans(MAX_OPEN_SPANS);
  const endSession = (entry: OpenSpan, reason: string, at = Date.now()) => {
    entry.span.setAttribute('cos.session.end_reason', reason);
    entry.span.end(at);
  };
  const endTask = (entry: OpenSpan, outcome: string, at = Date.now()) => {
    entry.span.setAttribute('cos.task.outcome', outcome);
    entry.span.end(at);
  };
  const sweep = setInterval(() => {
    for (const entry of sessions.takeIdle(Date.now() - SESSION_IDLE_MS))
      endSession(entry, 'idle', entry.lastAt);
  }, 60_000);
  sweep.unref();

  const guard = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      // Telemetry must never break what it watches; one line in the log says what it missed.
      log?.warn({ err }, `OpenTelemetry could not record ${what}`);
    }
  };

  function project(name: string, machine: string, events: EventBus): ProjectTelemetry {
    const prefix = `${name}\u0000`;
    const base: Attributes = { 'cos.project': name };

    const sessionContext = (agent: string | null): Context => {
      const open = agent ? sessions.get(prefix + agent) : undefined;
      return open ? trace.setSpan(ROOT_CONTEXT, open.span) : ROOT_CONTEXT;
    };

    /** The agent's session span, opened at its first event. */
    const ensureSession = (agent: string, client: string, at: number): OpenSpan | undefined => {
      if (!tracer) return undefined;
      const key = prefix + agent;
      const open = sessions.get(key);
      if (open) {
        sessions.touch(key, at);
        return open;
      }
      const provider = providerOf(client);
      const span = tracer.startSpan(
        `invoke_agent ${client}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: at,
          attributes: {
            ...base,
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.id': agent,
            'gen_ai.agent.name': client,
            'gen_ai.conversation.id': agent,
            'cos.agent.client': client,
            ...(provider ? { 'gen_ai.provider.name': provider, 'gen_ai.system': provider } : {}),
          },
        },
        ROOT_CONTEXT,
      );
      const entry = { span, lastAt: at };
      sessions.set(key, entry, (evicted) => endSession(evicted, 'evicted'));
      return entry;
    };

    const onHookEvent = (data: HookEventData) => {
      if (!tracer || (data.machine !== undefined && data.machine !== machine)) return;
      const session = ensureSession(data.agent, data.client, data.at);
      const span = tracer.startSpan(
        `hook ${data.event}`,
        {
          startTime: data.at,
          attributes: {
            ...base,
            'cos.hook.event': data.event,
            'cos.hook.kind': data.kind,
            ...(data.phase ? { 'cos.hook.phase': data.phase } : {}),
            ...(data.tool ? { 'gen_ai.tool.name': data.tool } : {}),
            ...(data.ok !== null ? { 'cos.hook.ok': data.ok } : {}),
            'cos.hook.summary': data.summary.slice(0, 200),
            'cos.hook.files': Array.isArray(data.files) ? data.files.length : 0,
            'gen_ai.conversation.id': data.agent,
          },
        },
        session ? trace.setSpan(ROOT_CONTEXT, session.span) : ROOT_CONTEXT,
      );
      if (data.ok === false)
        span.setStatus({ code: SpanStatusCode.ERROR, message: data.summary.slice(0, 200) });
      span.end(data.at);
      if (data.kind === 'session_end') {
        const ended = sessions.take(prefix + data.agent);
        if (ended) endSession(ended, 'session_end', data.at);
      }
    };

    const onTask = (data: TaskEventData, at: number) => {
      if (!tracer || data.task_id === null || (data.machine !== undefined && data.machine !== machine))
        return;
      const key = prefix + data.task_id;
      const open = tasks.get(key);
      if (open) {
        open.span.addEvent(`task ${data.change}`, { 'cos.task.status': data.new_status ?? '' }, at);
        if (
          data.change === 'deleted' ||
          (data.new_status !== null && TASK_END_STATUSES.has(data.new_status))
        ) {
          tasks.take(key);
          endTask(open, data.change === 'deleted' ? 'deleted' : (data.new_status ?? data.change), at);
        } else tasks.touch(key, at);
        return;
      }
      // Work starts when a task is claimed or moved into progress.
      if (data.change !== 'claimed' && data.new_status !== 'in_progress') return;
      const span = tracer.startSpan(
        `task ${data.task_id}`,
        {
          startTime: at,
          attributes: {
            ...base,
            'cos.task.id': data.task_id,
            'cos.task.source': data.source,
            ...(data.agent_session ? { 'gen_ai.conversation.id': data.agent_session } : {}),
          },
        },
        sessionContext(data.agent_session),
      );
      tasks.set(key, { span, lastAt: at }, (evicted) => endTask(evicted, 'evicted'));
    };

    const onUsage = (data: UsageRecordedData) => {
      if (!tracer || typeof data.agent_session !== 'string') return;
      const model = data.model ?? 'unknown';
      const provider = providerOf(data.client);
      const t = data.tokens ?? { input: 0, output: 0, cache_read: 0, cache_write: 0 };
      const cacheRead = count(t.cache_read);
      const cacheWrite = count(t.cache_write);
      const at = typeof data.at === 'number' ? data.at : Date.now();
      const session = sessions.get(prefix + data.agent_session);
      const span = tracer.startSpan(
        `chat ${model}`,
        {
          kind: SpanKind.CLIENT,
          startTime: at,
          attributes: {
            ...base,
            'gen_ai.operation.name': 'chat',
            ...(provider ? { 'gen_ai.provider.name': provider, 'gen_ai.system': provider } : {}),
            'gen_ai.request.model': model,
            'gen_ai.response.model': model,
            'gen_ai.conversation.id': data.agent_session,
            // The conventions count cached prompt tokens in input_tokens, and name them apart too.
            'gen_ai.usage.input_tokens': count(t.input) + cacheRead + cacheWrite,
            'gen_ai.usage.output_tokens': count(t.output),
            'gen_ai.usage.cache_read.input_tokens': cacheRead,
            'gen_ai.usage.cache_creation.input_tokens': cacheWrite,
            'cos.usage.records': count(data.records),
            ...(typeof data.cost_usd === 'number' ? { 'cos.usage.cost_usd': data.cost_usd } : {}),
            ...(data.task_id ? { 'cos.task.id': data.task_id } : {}),
          },
        },
        session ? trace.setSpan(ROOT_CONTEXT, session.span) : ROOT_CONTEXT,
      );
      span.end(at);
    };

    const unsubscribe = events.subscribe((event: HubEvent) => {
      switch (event.type) {
        case 'agent-event':
          return guard('a hook event', () => onHookEvent(event.data as HookEventData));
        case 'task-updated':
          return guard('a task change', () => onTask(event.data as TaskEventData, event.at));
        case 'usage-recorded':
          return guard('token usage', () => onUsage(event.data as UsageRecordedData));
        default:
          return undefined;
      }
    });

    return {
      toolCall(call: ToolCallRecord) {
        if (!tracer) return;
        guard('a tool call', () => {
          const span = tracer.startSpan(
            `execute_tool ${call.tool}`,
            {
              kind: SpanKind.SERVER,
              startTime: call.startedAt,
              attributes: {
                ...base,
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': call.tool,
                'cos.tool.module': call.module,
                'cos.transport': call.transport,
                'cos.outcome': call.errorCategory ?? 'ok',
                'cos.duration_ms': call.durationMs,
                'cos.response.bytes': call.responseBytes,
                'cos.truncated': call.truncated,
                ...(call.transport === 'mcp' ? { 'mcp.method.name': 'tools/call' } : {}),
                ...(call.mcpSession ? { 'mcp.session.id': call.mcpSession } : {}),
                ...(call.clientName ? { 'cos.client.name': call.clientName } : {}),
                ...(call.agentSession ? { 'gen_ai.conversation.id': call.agentSession } : {}),
                ...(call.errorCategory ? { 'error.type': call.errorCategory } : {}),
              },
            },
            sessionContext(call.agentSession),
          );
          if (!call.ok)
            span.setStatus({ code: SpanStatusCode.ERROR, message: call.errorCategory ?? 'error' });
          span.end(call.startedAt + call.durationMs);
        });
      },
      observeMetrics(read) {
        const source: MetricSource = { project: name, read };
        sources.add(source);
        return () => {
          sources.delete(source);
        };
      },
      close() {
        unsubscribe();
        for (const entry of sessions.takeAll(prefix)) endSession(entry, 'hub_closed');
        for (const entry of tasks.takeAll(prefix)) endTask(entry, 'hub_closed');
      },
    };
  }

  const target = settings.traces ?? settings.metrics;

  return {
    project,
    attachLogger(logger) {
      log = logger.child({ scope: 'telemetry' });
    },
    status(): TelemetryStatus {
      return {
        enabled: true,
        endpoint: target ? shownEndpoint(target.url) : null,
        protocol: target?.protocol ?? null,
        exported: counts.exported,
        dropped: counts.dropped,
        failed: counts.failed,
        last_error: counts.lastError,
      };
    },
    problem() {
      if (!counts.failing) return undefined;
      const where = target ? shownEndpoint(target.url) : 'the collector';
      return `OpenTelemetry export to ${where} is failing (${counts.lastError ?? 'no answer'}); ${counts.failed} spans failed and ${counts.dropped} were dropped so far: start the collector or fix OTEL_EXPORTER_OTLP_ENDPOINT; tool calls are answered as usual meanwhile`;
    },
    async shutdown() {
      clearInterval(sweep);
      for (const entry of sessions.takeAll()) endSession(entry, 'hub_closed');
      for (const entry of tasks.takeAll()) endTask(entry, 'hub_closed');
      // What is queued gets one last export, bounded: a collector that is away must not hold the exit.
      let timer: NodeJS.Timeout | undefined;
      const results = await Promise.race([
        Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), SHUTDOWN_MS);
        }),
      ]);
      clearTimeout(timer);
      if (!results)
        log?.warn(`OpenTelemetry export did not finish within ${SHUTDOWN_MS} ms; the rest is dropped`);
      for (const r of results ?? [])
        if (r.status === 'rejected') log?.warn({ err: r.reason }, 'OpenTelemetry export did not finish');
    },
  };
}
