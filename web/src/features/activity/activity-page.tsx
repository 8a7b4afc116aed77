// Activity: who is working on what, every agent (from its hooks and MCP session) with what it is doing
// now, one agent's timeline and files, edit conflicts, the files agents reserved, every tool call as it
// happens (status, category, latency), the last hour's problems, and calls and latency per tool.
import { useMemo, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { Link } from '../../lib/router.tsx';
import { field, throttle, useHubEvents, useStreamStatus } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';
import {
  AgentDetail,
  AgentsCard,
  ConflictsCard,
  time,
  useMachineFilter,
  useSelectedAgent,
  WorkingOn,
} from './agents-panels.tsx';
import {
  type MetricsWindow,
  metrics,
  problemCounts,
  recentErrors,
  type TimelineEntry,
  timeline,
  WINDOWS,
} from './api.ts';
import { MessagesCard } from './messages-panel.tsx';
import { ReservationsCard } from './reservations-panel.tsx';

/**
 * Reload on an event, at most once per `ms`. The page's own reads are not recorded (api.ts), so they
 * raise no tool-called event and cannot feed back into the reload.
 */
function useReloadOn(types: Parameters<typeof useHubEvents>[0], reload: () => void, ms: number): void {
  const throttled = useMemo(() => throttle(reload, ms), [reload, ms]);
  useHubEvents(types, () => throttled());
}

function millis(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
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
  useReloadOn(['tool-called', 'task-updated', 'log-warning'], query.reload, 300);
  const latest = query.state.value?.data.entries ?? [];
  const seen = new Set(latest.map((e) => `${e.kind}:${e.id}`));
  const entries = [...latest, ...older.filter((e) => !seen.has(`${e.kind}:${e.id}`))];
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
      <h2 id="calls-title">Live activity</h2>
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

// Problems in the last hour: the same counts as the hub summary on Health & Settings (one query serves
// both), the tools whose calls failed, and the warnings and errors the hub logged.
function Problems() {
  const counts = useQuery('problem-counts', (signal) => problemCounts(signal));
  const logs = useQuery('recent-errors', (signal) => recentErrors(signal));
  const calls = useQuery('metrics:1h', (signal) => metrics('1h', signal));
  useReloadOn(['log-warning', 'tool-called'], counts.reload, 2000);
  useReloadOn(['log-warning'], logs.reload, 1000);
  useReloadOn(['tool-called'], calls.reload, 2000);
  const c = counts.state.value?.data;
  const failing = (calls.state.value?.data.rows ?? []).filter((r) => r.errors > 0);
  const entries = logs.state.value?.data.entries ?? [];
  return (
    <section className="card" aria-labelledby="errors-title" data-testid="problems">
      <h2 id="errors-title">Problems, last hour</h2>
      {counts.state.status === 'error' ? (
        <ErrorNotice error={counts.state.error} onRetry={counts.reload} />
      ) : null}
      {c ? (
        <p data-testid="problem-counts">
          {c.errors_last_hour === 0
            ? '✓ No failed call and no logged error.'
            : `${c.failed_calls_last_hour} failed tool call${c.failed_calls_last_hour === 1 ? '' : 's'}, ${c.logged_errors_last_hour} logged error${c.logged_errors_last_hour === 1 ? '' : 's'}.`}
        </p>
      ) : null}
      {failing.length > 0 ? (
        <ul className="compact-list">
          {failing.map((r) => (
            <li key={r.tool}>
              <code>{r.tool}</code>: {r.errors} failed (
              {Object.entries(r.errors_by_category)
                .map(([k, n]) => `${k} ${n}`)
                .join(', ')}
              )
            </li>
          ))}
        </ul>
      ) : null}
      {entries.length > 0 ? <h3>Logged warnings and errors</h3> : null}
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
      {entries.length === 0 && logs.state.value ? <p className="muted">Nothing logged.</p> : null}
    </section>
  );
}

function Bars({
  rows,
  value,
  format = String,
}: {
  rows: { tool: string; v: number }[];
  value: string;
  format?: (v: number) => string;
}) {
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
            <td className="num">{format(r.v)}</td>
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
            <Bars value="calls per tool" rows={rows.map((r) => ({ tool: r.tool, v: r.calls }))} />
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
              format={millis}
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
  const [machine, setMachine] = useMachineFilter();
  const [selected, select] = useSelectedAgent(machine);
  return (
    <Page
      title="Activity"
      actions={
        <>
          <Link to="/review">Review the working tree</Link>
          <span className="muted" data-testid="stream-status">
            {stream === 'live' ? '● Live' : stream === 'connecting' ? '○ Connecting…' : '○ Reconnecting…'}
          </span>
        </>
      }
    >
      <ModuleGate modules={['observability']}>
        <div className="grid">
          <WorkingOn machine={machine} />
          <AgentsCard selected={selected} onSelect={select} machine={machine} onMachine={setMachine} />
          <AgentDetail agentId={selected} machine={machine} />
          <ConflictsCard machine={machine} />
          <MessagesCard />
          <Problems />
          <ReservationsCard machine={machine} />
          <LiveCalls />
          <Charts />
        </div>
      </ModuleGate>
    </Page>
  );
}
