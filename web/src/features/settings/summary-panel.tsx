// At a glance: what the hub holds and whether anything needs a look (errors in the last hour, task
// files that do not parse), each linking to the page that shows more.
import { ErrorNotice } from '../../components/error-notice.tsx';
import { count } from '../../lib/plural.ts';
import { Link } from '../../lib/router.tsx';
import { useQuery } from '../../lib/use-query.ts';
import { hubSummary } from './api.ts';

export function SummaryPanel() {
  const query = useQuery('hub-summary', hubSummary);
  const v = query.state.value?.data;
  return (
    <section className="card" aria-labelledby="summary-title" data-testid="hub-summary">
      <div className="card-header">
        <h2 id="summary-title">At a glance</h2>
        <button type="button" onClick={query.reload}>
          Refresh
        </button>
      </div>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {v ? (
        <dl className="facts">
          <dt>Tasks</dt>
          <dd>
            {v.tasks ? (
              <Link to="/board">
                {v.tasks.total} on the board
                {v.tasks.parse_errors > 0
                  ? ` (⚠ ${count(v.tasks.parse_errors, 'file does', 'files do')} not parse)`
                  : ''}
              </Link>
            ) : (
              'tasks module off'
            )}
          </dd>
          <dt>Code graph</dt>
          <dd>
            {v.graph ? (
              <Link to="/graph">
                {count(v.graph.nodes, 'node')}, {count(v.graph.edges, 'edge')}
                {v.graph.indexing ? ' (indexing)' : ''}
              </Link>
            ) : (
              'not running'
            )}
          </dd>
          <dt>Agents</dt>
          <dd>
            <Link to="/activity">
              {v.agents.active} active, {v.agents.present} present
            </Link>
          </dd>
          <dt>Errors, last hour</dt>
          <dd data-testid="summary-errors">
            {v.errors_last_hour === 0 ? (
              '✓ none'
            ) : (
              <Link to="/activity">
                ⚠ {v.failed_calls_last_hour} failed tool call{v.failed_calls_last_hour === 1 ? '' : 's'},{' '}
                {v.logged_errors_last_hour} logged error{v.logged_errors_last_hour === 1 ? '' : 's'}
              </Link>
            )}
          </dd>
        </dl>
      ) : null}
    </section>
  );
}
