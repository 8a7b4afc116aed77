// The cost views the pages share: a task's or an agent's amount (with its budget warning in words, not
// colour alone), and a table of groups with tokens by kind.
import type { CostGroup, CostTotals } from './api.ts';
import { costText, tokenBreakdown, tokens, usd } from './format.ts';

/** A small amount for a card or a row; nothing when nothing was recorded. */
export function CostAmount({ cost, overBudget }: { cost: CostTotals | undefined; overBudget?: boolean }) {
  if (!cost || cost.records === 0) return null;
  return (
    <span
      className={`cost${overBudget ? ' cost-over' : ''}`}
      title={`${tokenBreakdown(cost)}${overBudget ? ' · over the task budget' : ''}`}
      data-testid="cost"
    >
      {overBudget ? <span aria-hidden="true">⚠ </span> : null}
      {costText(cost)}
      {overBudget ? <span className="visually-hidden"> (over budget)</span> : null}
    </span>
  );
}

/** A table of groups (models, kinds, weeks, agents): tokens by kind and cost. */
export function CostTable({
  groups,
  label,
  name,
}: {
  groups: readonly CostGroup[];
  label: string;
  name?: (g: CostGroup) => React.ReactNode;
}) {
  if (groups.length === 0) return <p className="muted">No usage recorded yet.</p>;
  return (
    <div className="table-wrap">
      <table className="symbols-table cost-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">{label}</th>
            <th scope="col" className="num">
              Input
            </th>
            <th scope="col" className="num">
              Output
            </th>
            <th scope="col" className="num">
              Cache write
            </th>
            <th scope="col" className="num">
              Cache read
            </th>
            <th scope="col" className="num">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <tr key={g.key ?? '(none)'} data-cost-key={g.key ?? ''}>
              <td>{name ? name(g) : g.label}</td>
              <td className="num">{tokens(g.input_tokens)}</td>
              <td className="num">{tokens(g.output_tokens)}</td>
              <td className="num">{tokens(g.cache_write_tokens)}</td>
              <td className="num">{tokens(g.cache_read_tokens)}</td>
              <td className="num">
                {g.cost_usd === null ? <span className="muted">unpriced</span> : usd(g.cost_usd)}
                {g.cost_usd !== null && g.unpriced ? (
                  <div className="muted">+{tokens(g.unpriced.tokens)} unpriced</div>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
