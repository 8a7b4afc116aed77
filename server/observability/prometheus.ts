// The hub's in-memory counters as one snapshot (metricsSnapshot), which both faces of them read: the
// Prometheus text exposition format (version 0.0.4) at /metrics, and the OpenTelemetry export
// (server/telemetry/), so the two never disagree on a number.
import type { CallRecorder } from './calls.ts';
import { LATENCY_BUCKETS } from './histogram.ts';
import type { Lifecycle } from './sessions.ts';

const escapeLabel = (v: string) => v.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('"', '\\"');
const labels = (pairs: Record<string, string>) =>
  `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',')}}`;

export interface Gauges {
  sessions: Record<Lifecycle, number>;
  streamClients: number;
  uptimeSeconds: number;
  /** process.memoryUsage() of the hub (RSS, V8 heap, memory outside the heap). */
  memory?: NodeJS.MemoryUsage;
  /** Milliseconds the event loop has spent not waiting for I/O (performance.eventLoopUtilization). */
  eventLoopActiveMs?: number;
}

/** Every number /metrics shows, read at one moment. */
export interface MetricsSnapshot {
  /** Calls by tool, transport and outcome (`ok` or the error category), sorted. */
  calls: { tool: string; transport: string; outcome: string; calls: number }[];
  /** Calls that answered an error, by tool and category, sorted. */
  errors: { tool: string; category: string; calls: number }[];
  /** Latency per tool: `buckets` counts per bucket of LATENCY_BUCKETS (not cumulative), then those above. */
  latencies: { tool: string; buckets: number[]; overflow: number; count: number; sum: number }[];
  /** Call records dropped because the database refused writes for too long. */
  callsDropped: number;
  gauges: Gauges;
}

export function metricsSnapshot(calls: CallRecorder, gauges: Gauges): MetricsSnapshot {
  const errors = new Map<string, number>();
  const counts = calls
    .callCounts()
    .map((c) => ({ ...c, key: `${c.tool}\t${c.transport}\t${c.outcome}` }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ key: _key, ...c }) => c);
  for (const { tool, outcome, calls: n } of counts) {
    if (outcome === 'ok') continue;
    const k = `${tool}\t${outcome}`;
    errors.set(k, (errors.get(k) ?? 0) + n);
  }
  return {
    calls: counts,
    errors: [...errors].sort().map(([key, n]) => {
      const [tool = '', category = ''] = key.split('\t');
      return { tool, category, calls: n };
    }),
    latencies: calls
      .latencies()
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([tool, h]) => {
        const buckets = [...h.counts];
        const inBuckets = buckets.reduce((a, b) => a + b, 0);
        return { tool, buckets, overflow: h.count - inBuckets, count: h.count, sum: h.sum };
      }),
    callsDropped: calls.dropped,
    gauges,
  };
}

export function prometheusText(snapshot: MetricsSnapshot): string {
  const { gauges } = snapshot;
  const out: string[] = [];
  out.push(
    '# HELP cos_tool_calls_total Tool calls by tool, transport and outcome (ok, or the error category).',
  );
  out.push('# TYPE cos_tool_calls_total counter');
  for (const { tool, transport, outcome, calls: n } of snapshot.calls) {
    out.push(`cos_tool_calls_total${labels({ tool, transport, outcome })} ${n}`);
  }
  out.push('# HELP cos_tool_errors_total Tool calls that answered an error, by tool and category.');
  out.push('# TYPE cos_tool_errors_total counter');
  for (const { tool, category, calls: n } of snapshot.errors) {
    out.push(`cos_tool_errors_total${labels({ tool, category })} ${n}`);
  }
  out.push(
    '# HELP cos_tool_call_duration_seconds Time from the call arriving to its answer being serialised.',
  );
  out.push('# TYPE cos_tool_call_duration_seconds histogram');
  for (const h of snapshot.latencies) {
    const { tool } = h;
    let running = 0;
    LATENCY_BUCKETS.forEach((le, i) => {
      running += h.buckets[i] ?? 0;
      out.push(`cos_tool_call_duration_seconds_bucket${labels({ tool, le: String(le) })} ${running}`);
    });
    out.push(`cos_tool_call_duration_seconds_bucket${labels({ tool, le: '+Inf' })} ${h.count}`);
    out.push(`cos_tool_call_duration_seconds_sum${labels({ tool })} ${h.sum}`);
    out.push(`cos_tool_call_duration_seconds_count${labels({ tool })} ${h.count}`);
  }
  out.push('# HELP cos_mcp_sessions Open MCP sessions by lifecycle.');
  out.push('# TYPE cos_mcp_sessions gauge');
  for (const lifecycle of ['active', 'present', 'idle'] as const) {
    out.push(`cos_mcp_sessions${labels({ lifecycle })} ${gauges.sessions[lifecycle]}`);
  }
  out.push('# HELP cos_stream_clients Browsers connected to the live event stream.');
  out.push('# TYPE cos_stream_clients gauge');
  out.push(`cos_stream_clients ${gauges.streamClients}`);
  out.push(
    '# HELP cos_calls_dropped_total Call records dropped because the database refused writes for too long.',
  );
  out.push('# TYPE cos_calls_dropped_total counter');
  out.push(`cos_calls_dropped_total ${snapshot.callsDropped}`);
  out.push('# HELP cos_uptime_seconds Seconds since the hub process started.');
  out.push('# TYPE cos_uptime_seconds gauge');
  out.push(`cos_uptime_seconds ${Math.round(gauges.uptimeSeconds)}`);
  if (gauges.eventLoopActiveMs !== undefined) {
    out.push(
      '# HELP cos_event_loop_active_seconds_total Time the event loop spent running callbacks or blocked in them (not waiting for I/O).',
      '# TYPE cos_event_loop_active_seconds_total counter',
      `cos_event_loop_active_seconds_total ${gauges.eventLoopActiveMs / 1000}`,
    );
  }
  if (gauges.memory) {
    // The names node exporters use, so a dashboard that knows them reads these too.
    const m = gauges.memory;
    const gauge = (name: string, help: string, value: number) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
    };
    gauge('process_resident_memory_bytes', 'Resident memory of the hub process.', m.rss);
    gauge('nodejs_heap_size_total_bytes', 'V8 heap size, used and free.', m.heapTotal);
    gauge(
      'nodejs_heap_size_used_bytes',
      'V8 heap in use (live objects and garbage not yet collected).',
      m.heapUsed,
    );
    gauge(
      'nodejs_external_memory_bytes',
      'Memory V8 accounts for outside its heap (buffers; not SQLite, whose page cache is plain malloc).',
      m.external,
    );
  }
  return `${out.join('\n')}\n`;
}
