// Activity: who is connected and what each agent is doing, every tool call as it happens (status,
// category, latency), recent warnings and errors with their error ids, and calls and latency per tool.
import { useMemo, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { Link } from '../../lib/router.tsx';
import { field, throttle, useHubEvents, useStreamStatus } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';
import {
  type Lifecycle,
  type MetricsWindow,
  metrics,
  presenceAgents,
  recentErrors,
  type TimelineEntry,
  timeline,
  WINDOWS,
} from './api.ts';

// The hub records REST calls too, including the reads this page and the header make to draw themselves.
// Reloading on those would feed back into itself, and listing them buries the agents' calls; so they
// neither trigger a reload nor show, unless asked.
const OWN_READS = new Set([
  'cos_observability_timeline',
  'cos_presence_query',
  'cos_presence_now',
  'cos_sessions_active',
  'cos_metrics',
  'cos_log_query',
  'cos_stream_history',
  'cos_module_list',
  'cos_health',
]);

function isOwnRead(data: unknown): boolean {
  const tool = field(data, 'tool', 'string');
  return field(data, 'transport', 'string') === 'rest' && tool !== undefined && OWN_READS.has(tool);
}

/** Reload on an event, except the page's own reads coming back as tool-called events. */
function useReloadOn(types: Parameters<typeof useHubEvents>[0], reload: () => void, ms: number): void {
  const throttled = useMemo(() => throttle(reload, ms), [reload, ms]);
  useHubEvents(types, (event) => {
    if (event.type === 'tool-called' && isOwnRead(event.data)) return;
    throttled();
  });
}

const LIFECYCLE: Record<Lifecycle, string> = {
  active: '● active',
  present: '◐ present',
  idle: '○ idle',
  ended: '✕ ended',
};

function millis(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

function time(ms: number): string {
  return new Date(ms).toLocaleTimeString();
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

function Agents() {
  const query = useQuery('presence-agents', (signal) => presenceAgents(signal));
  useReloadOn(['presence-updated', 'tool-called'], query.reload, 500);
  const entries = query.state.value?.data.entries ?? [];
  return (
    <section className="card" aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {entries.length === 0 && query.state.value ? (
        <p className="muted">No agent is connected. Connect one from Health &amp; Settings.</p>
      ) : null}
      {entries.length > 0 ? (
        <table className="table" data-testid="agents">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">State</th>
              <th scope="col">Doing</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((a) => (
              <tr key={a.id}>
                <td>
                  {a.client ?? 'unknown client'}
                  {a.agent_session ? <div className="muted">{a.agent_session}</div> : null}
                </td>
                <td className={`lifecycle lifecycle-${a.lifecycle}`}>{LIFECYCLE[a.lifecycle]}</td>
                <td>
                  {a.claimed_task ? (
                    <Link to={`/board?task=${encodeURIComponent(a.claimed_task.id)}`}>
                      {a.claimed_task.id}: {a.claimed_task.title}
                    </Link>
                  ) : null}
                  {a.last_tool ? <div className="muted">last: {a.last_tool}</div> : null}
                </td>
                <td>{ago(a.last_activity_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function CallRow({ entry }: { entry: TimelineEntry }) {
  const d = entry.detail;
  if (entry.kind !== 'tool_call') {
    return (
      <tr data-kind={entry.kind}>
        <td>{time(entry.at)}</td>
        <td colSpan={4}>
          <span className="muted">{entry.kind === 'board' ? 'board' : 'log'}</span> {entry.summary}
        </td>
        <td>{entry.ok ? '✓' : '✗'}</td>
      </tr>
    );
  }
  const category = field(d, 'error_category', 'string');
  const duration = field(d, 'duration_ms', 'number');
  return (
    <tr data-kind="tool_call" data-tool={field(d, 'tool', 'string')}>
      <td>{time(entry.at)}</td>
      <td>
        <code>{field(d, 'tool', 'string') ?? entry.summary}</code>
      </td>
      <td>{field(d, 'transport', 'string') ?? ''}</td>
      <td>{field(d, 'client_name', 'string') ?? field(d, 'agent_session', 'string') ?? ''}</td>
      <td className="num">{duration !== undefined ? millis(duration) : ''}</td>
      <td className={entry.ok ? 'call-ok' : 'call-failed'}>
        {entry.ok ? '✓ ok' : `✗ ${category ?? 'failed'}`}
        {field(d, 'truncated', 'boolean') ? ' ✂ cut' : ''}
      </td>
    </tr>
  );
}

function LiveCalls() {
  const query = useQuery('timeline', (signal) => timeline(signal));
  const [older, setOlder] = useState<TimelineEntry[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>();
  const [showOwn, setShowOwn] = useState(false);
  useReloadOn(['tool-called', 'task-updated', 'log-warning'], query.reload, 300);
  const own = (e: TimelineEntry) => e.kind === 'tool_call' && isOwnRead(e.detail);
  const latest = (query.state.value?.data.entries ?? []).filter((e) => showOwn || !own(e));
  const seen = new Set(latest.map((e) => `${e.kind}:${e.id}`));
  const entries = [...latest, ...older.filter((e) => !seen.has(`${e.kind}:${e.id}`) && (showOwn || !own(e)))];
  const next = cursor === undefined ? query.state.value?.data.next_cursor : cursor;
  const loadOlder = async () => {
    if (!next) return;
    const outcome = await timeline(undefined, next);
    if (outcome.ok) {
      setOlder((o) => [...o, ...outcome.value.data.entries]);
      setCursor(outcome.value.data.next_cursor);
    }
  };
  return (
    <section className="card wide" aria-labelledby="calls-title">
      <div className="card-header">
        <h2 id="calls-title">Live activity</h2>
        <label>
          <input type="checkbox" checked={showOwn} onChange={(e) => setShowOwn(e.currentTarget.checked)} />{' '}
          Show the hub page's own reads
        </label>
      </div>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {entries.length === 0 && query.state.value ? <p className="muted">Nothing yet.</p> : null}
      <div className="scroll-table">
        <table className="table" data-testid="timeline" aria-live="polite" aria-relevant="additions">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Tool</th>
              <th scope="col">Via</th>
              <th scope="col">Client</th>
              <th scope="col" className="num">
                Latency
              </th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <CallRow key={`${e.kind}:${e.id}`} entry={e} />
            ))}
          </tbody>
        </table>
      </div>
      {next ? (
        <button type="button" onClick={loadOlder}>
          Load older
        </button>
      ) : null}
    </section>
  );
}

function Errors() {
  const query = useQuery('recent-errors', (signal) => recentErrors(signal));
  useReloadOn(['log-warning'], query.reload, 1000);
  const entries = query.state.value?.data.entries ?? [];
  return (
    <section className="card" aria-labelledby="errors-title">
      <h2 id="errors-title">Recent warnings and errors</h2>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {entries.length === 0 && query.state.value ? <p className="muted">✓ None logged.</p> : null}
      <ul className="log-list">
        {entries.map((e) => (
          <li key={e.id}>
            <span className={`badge ${e.level === 'warn' ? 'badge-warn' : 'badge-error'}`}>{e.level}</span>{' '}
            <time dateTime={new Date(e.at).toISOString()}>{time(e.at)}</time> {e.message}
            {e.error_id ? (
              <div>
                error id <code>{e.error_id}</code>
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Bars({ rows, value, unit }: { rows: { tool: string; v: number }[]; value: string; unit: string }) {
  const max = Math.max(1, ...rows.map((r) => r.v));
  return (
    <table className="bars" aria-label={value}>
      <tbody>
        {rows.map((r) => (
          <tr key={r.tool}>
            <th scope="row">
              <code>{r.tool}</code>
            </th>
            <td>
              <span className="bar" style={{ width: `${(r.v / max) * 100}%` }} />
            </td>
            <td className="num">
              {r.v}
              {unit}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Charts() {
  const [span, setSpan] = useState<MetricsWindow>('1h');
  const query = useQuery(`metrics:${span}`, (signal) => metrics(span, signal));
  useReloadOn(['tool-called'], query.reload, 2000);
  const rows = query.state.value?.data.rows ?? [];
  return (
    <section className="card wide" aria-labelledby="charts-title">
      <div className="card-header">
        <h2 id="charts-title">Calls and latency per tool</h2>
        <label>
          Window{' '}
          <select
            value={span}
            onChange={(e) => {
              const w = WINDOWS.find((x) => x === e.currentTarget.value);
              if (w) setSpan(w);
            }}
          >
            {WINDOWS.map((w) => (
              <option key={w}>{w}</option>
            ))}
          </select>
        </label>
      </div>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {rows.length === 0 && query.state.value ? <p className="muted">No calls in this window.</p> : null}
      {rows.length > 0 ? (
        <div className="chart-grid">
          <div>
            <h3>Calls (errors)</h3>
            <Bars value="calls per tool" unit="" rows={rows.map((r) => ({ tool: r.tool, v: r.calls }))} />
            <ul className="muted compact-list">
              {rows
                .filter((r) => r.errors > 0)
                .map((r) => (
                  <li key={r.tool}>
                    {r.tool}: {r.errors} failed (
                    {Object.entries(r.errors_by_category)
                      .map(([c, n]) => `${c} ${n}`)
                      .join(', ')}
                    )
                  </li>
                ))}
            </ul>
          </div>
          <div>
            <h3>Latency p95</h3>
            <Bars
              value="p95 latency per tool"
              unit=" ms"
              rows={rows.map((r) => ({ tool: r.tool, v: r.p95_ms }))}
            />
          </div>
        </div>
      ) : null}
    </section>
  );
}

export default function ActivityPage() {
  const stream = useStreamStatus();
  return (
    <Page
      title="Activity"
      actions={
        <span className="muted" data-testid="stream-status">
          {stream === 'live' ? '● Live' : stream === 'connecting' ? '○ Connecting…' : '○ Reconnecting…'}
        </span>
      }
    >
      <ModuleGate modules={['observability']}>
        <div className="grid">
          <Agents />
          <Errors />
          <LiveCalls />
          <Charts />
        </div>
      </ModuleGate>
    </Page>
  );
}
