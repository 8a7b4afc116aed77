// File reservations: the paths agents reserved before editing them (cos_files_reserve), who holds each,
// on which machine in a team, why, for which task and for how long, live from the stream's
// `reservation-updated`. A person may release any of them here (the holder's timeline records it); an
// agent can release only its own.
import { useEffect, useMemo, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { type ApiError, api, call } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';
import { Link } from '../../lib/router.tsx';
import { throttle, useHubEvents } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Reservation = Json<paths['/api/files/reservations']['get']['responses'][200]>['data']['entries'][number];

function liveReservations(signal?: AbortSignal) {
  return call(api.GET('/api/files/reservations', { params: { query: { limit: 200 } }, signal }));
}

/** A person's release (no agent_session): the hub lets the page release anyone's. */
function release(id: string) {
  return call(api.POST('/api/files/release', { body: { id } }));
}

function expiresIn(at: number, now: number): string {
  const s = Math.max(0, Math.round((at - now) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** Re-renders every `ms` so "expires in" counts down without a reload. */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function ReservationsCard({ machine }: { machine: string | null }) {
  const query = useQuery('file-reservations', (signal) => liveReservations(signal));
  const reload = useMemo(() => throttle(query.reload, 300), [query.reload]);
  useHubEvents(['reservation-updated'], () => reload());
  const now = useNow(15_000);
  const [busy, setBusy] = useState<string | null>(null);
  const [failed, setFailed] = useState<ApiError | null>(null);
  const all = query.state.value?.data.entries ?? [];
  const team = new Set(all.map((r) => r.machine)).size > 1;
  const entries = all.filter((r) => r.expires_at > now && (!machine || r.machine === machine));

  const onRelease = async (r: Reservation) => {
    setBusy(r.id);
    setFailed(null);
    const outcome = await release(r.id);
    setBusy(null);
    if (outcome.ok)
      query.set((v) => ({ ...v, data: { ...v.data, entries: v.data.entries.filter((x) => x.id !== r.id) } }));
    else setFailed(outcome.error);
    query.reload();
  };

  return (
    <section className="card wide" aria-labelledby="reservations-title" data-testid="reservations">
      <h2 id="reservations-title">File reservations</h2>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {failed ? <ErrorNotice error={failed} /> : null}
      {entries.length === 0 && query.state.value ? (
        <p className="muted">No agent holds a file: none reserved one with cos_files_reserve.</p>
      ) : null}
      {entries.length > 0 ? (
        <div className="scroll-table">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Paths</th>
                <th scope="col">Held by</th>
                <th scope="col">Reason</th>
                <th scope="col">Task</th>
                <th scope="col" className="num">
                  Expires in
                </th>
                <th scope="col">
                  <span className="visually-hidden">Release</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((r) => (
                <tr key={r.id} data-reservation={r.id}>
                  <td>
                    {r.paths.map((p) => (
                      <code key={p} className="reserved-path">
                        {p}
                      </code>
                    ))}
                    {r.exclusive ? null : <span className="muted"> (shared)</span>}
                  </td>
                  <td>
                    <span title={r.holder}>{r.holder_label}</span>
                    {team && !r.holder_label.includes(' on ') ? (
                      <span className="muted"> on {r.machine}</span>
                    ) : null}
                  </td>
                  <td>{r.reason}</td>
                  <td>
                    {r.task_id ? (
                      <Link to={`/board?task=${encodeURIComponent(r.task_id)}`}>{r.task_id}</Link>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td className="num">
                    <time dateTime={new Date(r.expires_at).toISOString()}>
                      {expiresIn(r.expires_at, now)}
                    </time>
                  </td>
                  <td>
                    <button
                      type="button"
                      disabled={busy === r.id}
                      onClick={() => void onRelease(r)}
                      aria-label={`Release ${r.paths.join(', ')} held by ${r.holder_label}`}
                    >
                      {busy === r.id ? 'Releasing…' : 'Release'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
