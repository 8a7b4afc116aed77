// The graph index's state: size, freshness and progress while it indexes, live from `index-progress`
// events. Progress is a <progress> bar with its numbers in words beside it.
import { useMemo, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import type { ApiError } from '../../lib/api.ts';
import { count } from '../../lib/plural.ts';
import { field, throttle, useHubEvents } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';
import { graphReindex, hubSummary } from './api.ts';

export function IndexStatus() {
  const query = useQuery('hub-summary', (signal) => hubSummary(signal));
  const reload = useMemo(() => throttle(query.reload, 500), [query.reload]);
  useHubEvents(['index-progress', 'module-changed'], (event) => {
    // Only the graph's own progress matters here (the docs index reports on the same channel).
    if (event.type === 'index-progress' && field(event.data, 'layer', 'string') === 'docs') return;
    reload();
  });
  const graph = query.state.value?.data.graph;
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError | undefined>();
  const reindex = async () => {
    setBusy(true);
    setFailure(undefined);
    const outcome = await graphReindex();
    setBusy(false);
    if (!outcome.ok) setFailure(outcome.error);
    query.reload();
  };
  return (
    <section className="card" aria-labelledby="index-title" data-testid="graph-index">
      <div className="card-header">
        <h2 id="index-title">Index</h2>
        <button type="button" onClick={reindex} disabled={busy}>
          {busy ? 'Reindexing…' : 'Reindex'}
        </button>
      </div>
      {failure ? <ErrorNotice error={failure} onRetry={reindex} module="graph" compact /> : null}
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {query.state.value && !graph ? (
        <p className="muted">The code graph index is not running in this hub.</p>
      ) : null}
      {graph ? (
        <>
          <dl className="facts">
            <dt>Nodes</dt>
            <dd>{graph.nodes.toLocaleString()}</dd>
            <dt>Edges</dt>
            <dd>{graph.edges.toLocaleString()}</dd>
            <dt>Files</dt>
            <dd>{graph.files.toLocaleString()}</dd>
            <dt>Last indexed</dt>
            <dd>{graph.last_indexed_at ? new Date(graph.last_indexed_at).toLocaleString() : 'never'}</dd>
          </dl>
          {graph.indexing || graph.files_pending > 0 ? (
            <p>
              <label>
                Indexing: {count(graph.files_pending, 'file')} left{' '}
                <progress
                  max={graph.files + graph.files_pending}
                  value={graph.files}
                  aria-valuetext={`${count(graph.files_pending, 'file')} left`}
                />
              </label>
            </p>
          ) : (
            <p>✓ Up to date (generation {graph.generation})</p>
          )}
        </>
      ) : null}
    </section>
  );
}
