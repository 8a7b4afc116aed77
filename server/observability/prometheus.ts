// The Prometheus text exposition format (version 0.0.4) of the hub's in-memory counters.
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

export function prometheusText(calls: CallRecorder, gauges: Gauges): string {
  const out: string[] = [];
  out.push(
    '# HELP cos_tool_calls_total Tool calls by tool, transport and outcome (ok, or the error category).',
  );
  out.push('# TYPE cos_tool_calls_total counter');
  const errors = new Map<string, number>();
  const counts = calls
    .callCounts()
    .map((c) => ({ ...c, key: `${c.tool}\t${c.transport}\t${c.outcome}` }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const { tool, transport, outcome, calls: n } of counts) {
    out.push(`cos_tool_calls_total${labels({ tool, transport, outcome })} ${n}`);
    if (outcome !== 'ok') {
      const k = `${tool}\t${outcome}`;
      errors.set(k, (errors.get(k) ?? 0) + n);
    }
  }
  out.push('# HELP cos_tool_errors_total Tool calls that answered an error, by tool and category.');
  out.push('# TYPE cos_tool_errors_total counter');
  for (const [key, n] of [...errors].sort()) {
    const [tool = '', category = ''] = key.split('\t');
    out.push(`cos_tool_errors_total${labels({ tool, category })} ${n}`);
  }
  out.push(
    '# HELP cos_tool_call_duration_seconds Time from the call arriving to its answer being serialised.',
  );
  out.push('# TYPE cos_tool_call_duration_seconds histogram');
  for (const [tool, h] of calls.latencies().sort(([a], [b]) => a.localeCompare(b))) {
    const cumulative = h.cumulative();
    LATENCY_BUCKETS.forEach((le, i) => {
      out.push(`cos_tool_call_duration_seconds_bucket${labels({ tool, le: String(le) })} ${cumulative[i]}`);
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
  out.push(`cos_calls_dropped_total ${calls.dropped}`);
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
