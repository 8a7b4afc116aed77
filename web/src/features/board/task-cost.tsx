// A task's cost in its drawer: the total, the budget warning, and the split by model and by agent
// (a task handed from one agent to another adds up both parts).
import { CostTable } from '../../components/costs/cost-views.tsx';
import { costText, tokenBreakdown, usd } from '../../components/costs/format.ts';
import { useCosts } from '../../components/costs/use-costs.ts';

export function TaskCost({ id }: { id: string }) {
  const byModel = useCosts({ task_id: id, group_by: 'model' });
  const byAgent = useCosts({ task_id: id, group_by: 'agent' });
  const report = byModel.state.value?.data;
  // The report is the observability module's: with it off, the drawer simply has no cost section.
  if (byModel.state.status === 'error' || !report) return null;
  const over = report.budget.over.includes(id);
  const agents = byAgent.state.value?.data.groups ?? [];
  return (
    <section className="drawer-section" aria-label="Cost" data-testid="task-cost">
      <h3>Cost</h3>
      {report.total.records === 0 ? (
        <p className="muted">No usage recorded for this task yet.</p>
      ) : (
        <>
          <p>
            <strong data-testid="task-cost-total">{costText(report.total)}</strong>{' '}
            <span className="muted">({tokenBreakdown(report.total)})</span>
          </p>
          {over && report.budget.task_usd !== null ? (
            <p className="notice notice-warning" role="status" data-testid="budget-warning">
              Over budget: this task passed {usd(report.budget.task_usd)}, the limit per task in board.json.
            </p>
          ) : null}
          <CostTable groups={report.groups} label="Model" />
          {agents.length > 1 ? (
            <p className="muted">
              By agent:{' '}
              {agents
                .map((g) => `${g.label} ${g.cost_usd === null ? 'unpriced' : usd(g.cost_usd)}`)
                .join(' · ')}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
