// The Flow page: the daily (what moved in the last day, what is stuck), the retro over a window
// (throughput, cycle time, cumulative flow, time blocked), from cos_task_daily and cos_task_retro, and
// what the agents' work cost over the same window (cos_cost_report).
import { ErrorNotice } from '../../components/error-notice.tsx';
import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { Link, navigate, useLocation, withParams } from '../../lib/router.tsx';
import { useQuery } from '../../lib/use-query.ts';
import { type Daily, loadDaily, loadRetro, type Retro } from './api.ts';
import { CumulativeFlow, CycleScatter, FlowLegend, ThroughputChart } from './charts.tsx';
import { FlowCosts } from './flow-costs.tsx';

const WEEKS = [2, 4, 8, 13] as const;

function TaskLink({ id }: { id: string }) {
  return <Link to={`/board?task=${encodeURIComponent(id)}`}>{id}</Link>;
}

function Moves({ title, items }: { title: string; items: Daily['completed'] }) {
  return (
    <section className="card" aria-label={title}>
      <h2>
        {title} <span className="muted">({items.length})</span>
      </h2>
      {items.length === 0 ? <p className="muted">None.</p> : null}
      <ul>
        {items.map((i) => (
          <li key={`${i.id}:${i.at}`}>
            <TaskLink id={i.id} /> {i.title}{' '}
            <span className="muted">
              {i.who
                ? `by ${i.who}${i.machine ? ` on ${i.machine}` : ''}, `
                : i.machine
                  ? `on ${i.machine}, `
                  : ''}
              {new Date(i.at).toLocaleString()}
              {i.reason ? `: ${i.reason}` : ''}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function DailyView({ daily }: { daily: Daily }) {
  return (
    <>
      <h2>The last day</h2>
      <div className="grid">
        <Moves title="Completed" items={daily.completed} />
        <Moves title="Started" items={daily.started} />
        <Moves title="Blocked" items={daily.blocked} />
        <section className="card" aria-label="Stuck">
          <h2>
            Stuck <span className="muted">({daily.stuck.length})</span>
          </h2>
          {daily.stuck.length === 0 ? <p className="muted">Nothing in progress has sat idle a day.</p> : null}
          <ul>
            {daily.stuck.map((s) => (
              <li key={s.id}>
                <TaskLink id={s.id} /> {s.title}{' '}
                <span className="muted">
                  {s.who ? `held by ${s.who}${s.machine ? ` on ${s.machine}` : ''}, ` : ''}idle {s.idle_hours}{' '}
                  h
                </span>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </>
  );
}

function fmt(h: number | null): string {
  return h === null ? '—' : h >= 48 ? `${Math.round((h / 24) * 10) / 10} d` : `${h} h`;
}

function RetroView({ retro }: { retro: Retro }) {
  type S = { count: number; median_hours: number | null; p85_hours: number | null };
  const rows: { name: string; cycle: S; lead: S | undefined }[] = [
    { name: 'All', cycle: retro.cycle_time.all, lead: retro.lead_time.all },
    ...retro.cycle_time.by_kind.map((c) => ({
      name: `kind: ${c.kind}`,
      cycle: c,
      lead: retro.lead_time.by_kind.find((l) => l.kind === c.kind),
    })),
    ...retro.cycle_time.by_swimlane.map((c) => ({
      name: `swimlane: ${c.swimlane}`,
      cycle: c,
      lead: retro.lead_time.by_swimlane.find((l) => l.swimlane === c.swimlane),
    })),
  ];
  return (
    <>
      <div className="grid">
        <section className="card" aria-label="Throughput">
          <h2>Throughput</h2>
          <ThroughputChart throughput={retro.throughput} />
        </section>
        <section className="card" aria-label="Cycle time">
          <h2>Cycle time</h2>
          <CycleScatter retro={retro} />
        </section>
        <section className="card" aria-label="Cumulative flow">
          <h2>Cumulative flow</h2>
          <CumulativeFlow flow={retro.flow} />
          <FlowLegend />
        </section>
        <section className="card" aria-label="Time blocked">
          <h2>Time blocked</h2>
          <p>{fmt(retro.blocked.total_hours)} in all.</p>
          <ul>
            {retro.blocked.tasks.slice(0, 10).map((t) => (
              <li key={t.id}>
                <TaskLink id={t.id} /> {t.title} <span className="muted">{fmt(t.hours)}</span>
              </li>
            ))}
          </ul>
        </section>
      </div>
      <section className="card wide" aria-label="Cycle and lead time">
        <h2>Cycle and lead time</h2>
        <table className="symbols-table">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Done</th>
              <th scope="col">Cycle median</th>
              <th scope="col">Cycle p85</th>
              <th scope="col">Lead median</th>
              <th scope="col">Lead p85</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ name, cycle, lead }) => (
              <tr key={name}>
                <td>{name}</td>
                <td>{cycle.count}</td>
                <td>{fmt(cycle.median_hours)}</td>
                <td>{fmt(cycle.p85_hours)}</td>
                <td>{fmt(lead?.median_hours ?? null)}</td>
                <td>{fmt(lead?.p85_hours ?? null)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

export default function FlowPage() {
  const location = useLocation();
  const weeks = WEEKS.find((w) => String(w) === location.params.get('weeks')) ?? 4;
  const daily = useQuery('daily', (signal) => loadDaily(24, signal));
  const retro = useQuery(`retro:${weeks}`, (signal) => loadRetro({ weeks }, signal));
  return (
    <Page
      title="Flow"
      actions={
        <label>
          Retro over{' '}
          <select
            value={weeks}
            onChange={(e) =>
              navigate(withParams(location, { weeks: e.currentTarget.value }), { replace: true })
            }
          >
            {WEEKS.map((w) => (
              <option key={w} value={w}>
                {w} weeks
              </option>
            ))}
          </select>
        </label>
      }
    >
      <ModuleGate modules={['tasks']}>
        {daily.state.status === 'error' ? (
          <ErrorNotice error={daily.state.error} onRetry={daily.reload} />
        ) : null}
        {daily.state.value ? <DailyView daily={daily.state.value.data} /> : null}
        <h2>The retro</h2>
        {retro.state.status === 'error' ? (
          <ErrorNotice error={retro.state.error} onRetry={retro.reload} />
        ) : null}
        {retro.state.value ? <RetroView retro={retro.state.value.data} /> : null}
        <h2>What agents cost</h2>
        {retro.state.value ? <FlowCosts weeks={retro.state.value.data.throughput} /> : null}
      </ModuleGate>
    </Page>
  );
}
