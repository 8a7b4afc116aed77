// The Flow page's cost: dollars per week of the retro's window, per kind of task and per model, what a
// completed task costs (median, p85), and the tasks over the budget set in board.json.

import { CostTable } from '../../components/costs/cost-views.tsx';
import { costText, usd } from '../../components/costs/format.ts';
import { useCosts } from '../../components/costs/use-costs.ts';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { Link } from '../../lib/router.tsx';
import { WeekBars } from './charts.tsx';

/** `weeks`: the retro's weeks (ISO week and its Monday), so both charts cover the same window. */
export function FlowCosts({ weeks }: { weeks: readonly { week: string; starts: string }[] }) {
  const since = weeks[0] ? `${weeks[0].starts}T00:00:00Z` : undefined;
  const window = since ? { since } : {};
  const perWeek = useCosts({ group_by: 'week', ...window });
  const perKind = useCosts({ group_by: 'kind', ...window });
  const perModel = useCosts({ group_by: 'model', ...window });
  const week = perWeek.state.value?.data;
  if (perWeek.state.status === 'error')
    return <ErrorNotice error={perWeek.state.error} onRetry={perWeek.reload} module="observability" />;
  if (!week) return null;
  const byWeek = new Map(week.groups.map((g) => [g.key, g]));
  const completed = week.completed_tasks;
  return (
    <>
      <div className="grid">
        <section className="card" aria-label="Cost per week">
          <h2>Cost per week (USD)</h2>
          <p className="muted" data-testid="cost-window-total">
            {week.total.records === 0
              ? 'No usage recorded in this window.'
              : `${costText(week.total)} in all.`}
          </p>
          <WeekBars
            id="cost-week-title"
            title="USD spent by agents per week"
            format={(v) => String(Math.round(v * 100) / 100)}
            bars={weeks.map((w) => {
              const g = byWeek.get(w.starts);
              return { week: w.week, value: g?.cost_usd ?? 0, title: `${w.week}: ${g ? costText(g) : '$0'}` };
            })}
          />
        </section>
        <section className="card" aria-label="Cost per completed task">
          <h2>Cost per completed task</h2>
          {completed && completed.tasks > 0 ? (
            <dl className="facts" data-testid="cost-per-task">
              <dt>Completed</dt>
              <dd>{completed.tasks}</dd>
              <dt>Median</dt>
              <dd>{completed.median_cost_usd === null ? 'unpriced' : usd(completed.median_cost_usd)}</dd>
              <dt>p85</dt>
              <dd>{completed.p85_cost_usd === null ? 'unpriced' : usd(completed.p85_cost_usd)}</dd>
            </dl>
          ) : (
            <p className="muted">No completed task with recorded usage in this window.</p>
          )}
        </section>
        <section className="card" aria-label="Over budget">
          <h2>Over budget</h2>
          {week.budget.task_usd === null ? (
            <p className="muted">
              No budget set. Put <code>{'{"budget": {"task_usd": 5}}'}</code> in board.json to be warned.
            </p>
          ) : week.budget.over.length === 0 ? (
            <p className="muted">No task passed {usd(week.budget.task_usd)}.</p>
          ) : (
            <div className="notice notice-warning" role="status" data-testid="flow-budget-warning">
              <p>
                {week.budget.over.length === 1 ? 'One task' : `${week.budget.over.length} tasks`} passed the
                budget of {usd(week.budget.task_usd)}:{' '}
                {week.budget.over.map((id, i) => (
                  <span key={id}>
                    {i > 0 ? ', ' : ''}
                    <Link to={`/board?task=${encodeURIComponent(id)}`}>{id}</Link>
                  </span>
                ))}
              </p>
            </div>
          )}
        </section>
      </div>
      <div className="grid">
        <section className="card" aria-label="Cost per kind of task">
          <h2>Per kind of task</h2>
          <CostTable groups={perKind.state.value?.data.groups ?? []} label="Kind" />
        </section>
        <section className="card" aria-label="Cost per model">
          <h2>Per model</h2>
          <CostTable groups={perModel.state.value?.data.groups ?? []} label="Model" />
        </section>
      </div>
    </>
  );
}
