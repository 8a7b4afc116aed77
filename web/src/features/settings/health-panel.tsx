import { useEffect } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import type { components } from '../../lib/api-types.ts';
import { onModulesChanged } from '../../lib/modules.ts';
import { useQuery } from '../../lib/use-query.ts';
import { getHealth } from './api.ts';

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

type TeamHealth = NonNullable<components['schemas']['Health']['team']>;

/** The team on PostgreSQL: which team, this machine, the database and the machines online. */
function TeamFacts({ team }: { team: TeamHealth }) {
  return (
    <>
      <h3>Team</h3>
      <dl className="facts" data-testid="team-facts">
        <dt>Team</dt>
        <dd>{team.team}</dd>
        <dt>This machine</dt>
        <dd>{team.machine}</dd>
        <dt>Database</dt>
        <dd>
          <span className={`badge badge-${team.state === 'connected' ? 'ok' : 'degraded'}`}>
            {team.state === 'connected'
              ? '✓ connected'
              : team.state === 'down'
                ? '✗ unreachable'
                : 'connecting'}
          </span>{' '}
          {team.database}, {team.connections.total} of {team.connections.max} connections
          {team.outbox > 0 ? `, ${team.outbox} events waiting` : ''}
        </dd>
        <dt>Machines</dt>
        <dd>{team.hubs.length > 0 ? team.hubs.map((h) => h.machine).join(', ') : team.machine}</dd>
      </dl>
    </>
  );
}

export function HealthPanel() {
  const query = useQuery('health', getHealth);
  useEffect(() => onModulesChanged(query.reload), [query.reload]);
  const { state } = query;
  return (
    <section className="card" aria-labelledby="health-title">
      <div className="card-header">
        <h2 id="health-title">Health</h2>
        <button type="button" onClick={query.reload} disabled={state.status === 'loading'}>
          Refresh
        </button>
      </div>
      {state.status === 'error' ? <ErrorNotice error={state.error} onRetry={query.reload} /> : null}
      {state.value === undefined ? (
        state.status === 'loading' ? (
          <p className="muted">Loading…</p>
        ) : null
      ) : (
        <>
          <p>
            <span className={`badge badge-${state.value.data.status}`} data-testid="health-status">
              <span aria-hidden="true">{state.value.data.status === 'ok' ? '✓' : '!'}</span>{' '}
              {state.value.data.status === 'ok' ? 'Healthy' : 'Degraded'}
            </span>
          </p>
          {state.value.data.problems.length > 0 ? (
            <ul className="problems">
              {state.value.data.problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          ) : null}
          <dl className="facts">
            <dt>Version</dt>
            <dd>{state.value.data.version}</dd>
            <dt>Uptime</dt>
            <dd>{duration(state.value.data.uptime_seconds)}</dd>
            <dt>Node.js</dt>
            <dd>{state.value.data.node_version}</dd>
            <dt>Database</dt>
            <dd>
              schema v{state.value.data.database.schema_version},{' '}
              {bytes(state.value.data.database.size_bytes)}
            </dd>
            <dt>Full-text search</dt>
            <dd>
              {state.value.data.database.fts5 ? '✓ FTS5 available' : '✗ FTS5 missing: search is unavailable'}
            </dd>
          </dl>
          {state.value.data.team ? <TeamFacts team={state.value.data.team} /> : null}
          <details>
            <summary>Rows per table</summary>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Table</th>
                  <th scope="col" className="num">
                    Rows
                  </th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(state.value.data.database.tables).map(([name, rows]) => (
                  <tr key={name}>
                    <td>{name}</td>
                    <td className="num">{rows}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}
