// The header's presence line: how many agents are active or around, live from the stream. It stays
// quiet (no error banner) when observability is off, since every page shows this header.
import { useMemo } from 'react';
import { Link } from '../../lib/router.tsx';
import { throttle, useHubEvents, useStreamStatus } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';
import { presenceNow } from './api.ts';

export function PresenceSummary() {
  const query = useQuery('presence-now', (signal) => presenceNow(signal));
  const reload = useMemo(() => throttle(query.reload, 500), [query.reload]);
  useHubEvents(['presence-updated', 'module-changed'], reload);
  const stream = useStreamStatus();
  const counts = query.state.value?.data.counts;
  // In a team the header counts the whole team's agents and says on how many machines.
  const machines = query.state.value?.data.machines ?? [];
  return (
    <Link
      to="/activity"
      className="presence"
      data-testid="presence-summary"
      title={machines.length > 1 ? `Connected agents on ${machines.join(', ')}` : 'Connected agents'}
    >
      <span className={`stream-dot stream-${stream}`} aria-hidden="true">
        {stream === 'live' ? '●' : '○'}
      </span>{' '}
      <span className="visually-hidden">
        {stream === 'live' ? 'Live updates on. ' : 'Live updates reconnecting. '}
      </span>
      {query.state.status === 'error'
        ? 'presence off'
        : counts
          ? `${counts.active} active · ${counts.present} present${counts.idle ? ` · ${counts.idle} idle` : ''}${
              machines.length > 1 ? ` · ${machines.length} machines` : ''
            }`
          : '…'}
    </Link>
  );
}
