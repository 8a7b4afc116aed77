// The graph doctor as a badge ("healthy" or how many findings, in words), its findings on demand, and
// a fix button when some findings are ones the doctor can repair.
import { useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import type { ApiError } from '../../lib/api.ts';
import { count } from '../../lib/plural.ts';
import { useQuery } from '../../lib/use-query.ts';
import { graphDoctor } from './api.ts';

export function Doctor() {
  const query = useQuery('graph-doctor', () => graphDoctor(false));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError | undefined>();
  const [fixed, setFixed] = useState<string | undefined>();
  const v = query.state.value?.data;
  const fixable = v?.issues.filter((i) => i.fixable && i.count > 0) ?? [];
  const fix = async () => {
    setBusy(true);
    setFailure(undefined);
    const outcome = await graphDoctor(true);
    setBusy(false);
    if (!outcome.ok) {
      setFailure(outcome.error);
      return;
    }
    const counts = Object.entries(outcome.value.data.fixed ?? {});
    setFixed(counts.length ? counts.map(([k, n]) => `${k} ${n}`).join(', ') : 'nothing needed fixing');
    query.reload();
  };
  return (
    <section className="card" aria-labelledby="doctor-title" data-testid="graph-doctor">
      <div className="card-header">
        <h2 id="doctor-title">Doctor</h2>
        {v ? (
          <span className={`badge ${v.healthy ? 'badge-ok' : 'badge-warn'}`} data-testid="doctor-badge">
            {v.healthy ? '✓ healthy' : `! ${count(v.stats.issue_count, 'issue')}`}
          </span>
        ) : null}
      </div>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} module="graph" />
      ) : null}
      {failure ? <ErrorNotice error={failure} compact /> : null}
      {fixed ? <p role="status">Fixed: {fixed}.</p> : null}
      {v && v.issues.length > 0 ? (
        <details>
          <summary>
            {count(v.stats.finding_count, 'finding')} ({v.stats.issue_count} real)
          </summary>
          <ul className="results">
            {v.issues.map((i) => (
              <li key={i.category}>
                <strong>{i.category}</strong> × {i.count}{' '}
                <span className="muted">
                  {i.severity === 'info' ? 'info' : 'real'}
                  {i.fixable ? ', fixable' : ''}
                </span>
                {i.sample.length > 0 ? <div className="muted">{i.sample.slice(0, 3).join(', ')}</div> : null}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {fixable.length > 0 ? (
        <button type="button" onClick={fix} disabled={busy}>
          {busy ? 'Fixing…' : `Fix ${fixable.map((i) => i.category).join(', ')}`}
        </button>
      ) : null}
    </section>
  );
}
