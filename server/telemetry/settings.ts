// The OpenTelemetry settings the hub takes from the standard OTEL_* variables (the names and defaults of
// the OpenTelemetry SDK environment specification), parsed once with the rest of the configuration. No
// SDK code here: without an endpoint nothing else in server/telemetry/ is loaded.

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface SignalTarget {
  /** Where the exporter posts (…/v1/traces, …/v1/metrics). Holds any credentials: show it only through `shownEndpoint`. */
  url: string;
  protocol: OtlpProtocol;
  /** OTEL_EXPORTER_OTLP_HEADERS (and the signal's own): sent, never shown. */
  headers: Record<string, string>;
  timeoutMs: number;
}

export interface TelemetrySettings {
  /** Whether anything is exported: an endpoint is set, OTEL_SDK_DISABLED is not true, and the settings are sound. */
  enabled: boolean;
  /** Why telemetry is off although an endpoint is set (an unsupported protocol, a bad URL); null otherwise. */
  error: string | null;
  /** Undefined when traces are not exported (no endpoint for them, or OTEL_TRACES_EXPORTER=none). */
  traces: SignalTarget | undefined;
  metrics: SignalTarget | undefined;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded (service.name from OTEL_SERVICE_NAME wins). */
  resourceAttributes: Record<string, string>;
  /** The span queue (OTEL_BSP_*): spans beyond `maxQueueSize` waiting or in flight are dropped, and counted. */
  batch: {
    maxQueueSize: number;
    maxExportBatchSize: number;
    scheduledDelayMs: number;
    exportTimeoutMs: number;
  };
  /** OTEL_METRIC_EXPORT_INTERVAL and _TIMEOUT. */
  metricIntervalMs: number;
  metricTimeoutMs: number;
}

export const DEFAULT_SERVICE_NAME = 'cos-hub';

const PROTOCOLS = new Set<string>(['http/protobuf', 'http/json']);

function positiveInt(text: string | undefined, fallback: number): number {
  const n = Number(text);
  return text !== undefined && text.trim() !== '' && Number.isInteger(n) && n > 0 ? n : fallback;
}

/** `k=v,k2=v2`, each part percent-decoded (the W3C baggage form the spec uses); bad parts are skipped. */
export function parseKeyValues(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    try {
      const key = decodeURIComponent(part.slice(0, eq).trim());
      const value = decodeURIComponent(part.slice(eq + 1).trim());
      if (key !== '') out[key] = value;
    } catch {
      // A malformed escape: that pair is left out rather than the whole list.
    }
  }
  return out;
}

/** The endpoint as cos_health shows it: no user name or password, no query (either may carry a token). */
export function shownEndpoint(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

const env1 = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
};

function signal(
  env: NodeJS.ProcessEnv,
  name: 'TRACES' | 'METRICS',
  path: string,
): { target?: SignalTarget; error?: string } {
  const own = env1(env, `OTEL_EXPORTER_OTLP_${name}_ENDPOINT`);
  const base = env1(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (own === undefined && base === undefined) return {};
  // The signal's own endpoint is used as it is; the shared one gets the signal's path appended.
  const url = own ?? `${base!.replace(/\/+$/, '')}/${path}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: `OTEL_EXPORTER_OTLP_${own ? `${name}_` : ''}ENDPOINT is not a URL` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { error: `the OTLP endpoint must be http:// or https://, got ${parsed.protocol}` };
  const protocol =
    env1(env, `OTEL_EXPORTER_OTLP_${name}_PROTOCOL`) ??
    env1(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  if (!PROTOCOLS.has(protocol))
    return {
      error: `OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported: the hub exports OTLP over HTTP, set http/protobuf or http/json`,
    };
  return {
    target: {
      url,
      protocol: protocol as OtlpProtocol,
      headers: {
        ...parseKeyValues(env.OTEL_EXPORTER_OTLP_HEADERS),
        ...parseKeyValues(env[`OTEL_EXPORTER_OTLP_${name}_HEADERS`]),
      },
      timeoutMs: positiveInt(
        env[`OTEL_EXPORTER_OTLP_${name}_TIMEOUT`],
        positiveInt(env.OTEL_EXPORTER_OTLP_TIMEOUT, 10_000),
      ),
    },
  };
}

export function loadTelemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings {
  const disabled = env1(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true';
  const traces = signal(env, 'TRACES', 'v1/traces');
  const metrics = signal(env, 'METRICS', 'v1/metrics');
  const none = (name: string) => env1(env, name)?.toLowerCase() === 'none';
  const error = traces.error ?? metrics.error ?? null;
  const tracesTarget = none('OTEL_TRACES_EXPORTER') ? undefined : traces.target;
  const metricsTarget = none('OTEL_METRICS_EXPORTER') ? undefined : metrics.target;
  const resourceAttributes = parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES);
  const serviceName =
    env1(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? DEFAULT_SERVICE_NAME;
  const maxQueueSize = positiveInt(env.OTEL_BSP_MAX_QUEUE_SIZE, 2048);
  return {
    enabled: !disabled && error === null && (tracesTarget !== undefined || metricsTarget !== undefined),
    error: disabled ? null : error,
    traces: tracesTarget,
    metrics: metricsTarget,
    serviceName,
    resourceAttributes,
    batch: {
      maxQueueSize,
      maxExportBatchSize: Math.min(maxQueueSize, positiveInt(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512)),
      scheduledDelayMs: positiveInt(env.OTEL_BSP_SCHEDULE_DELAY, 5_000),
      exportTimeoutMs: positiveInt(env.OTEL_BSP_EXPORT_TIMEOUT, 30_000),
    },
    metricIntervalMs: positiveInt(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000),
    metricTimeoutMs: positiveInt(env.OTEL_METRIC_EXPORT_TIMEOUT, 30_000),
  };
}
