// A cost report that stays current: read once, then again (at most every 2 s) when the hub records new
// usage or a task moves (a claim or completion moves usage between a task and its session).
import { useEffect, useMemo, useRef } from 'react';
import { useHubEvents } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';
import { type CostGroup, type CostQuery, loadCosts } from './api.ts';

const REFRESH_MS = 2000;

export function useCosts(query: CostQuery) {
  const key = `costs:${JSON.stringify(query)}`;
  const costs = useQuery(key, (signal) => loadCosts(query, signal));
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useHubEvents(['usage-recorded', 'task-updated'], () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      costs.reload();
    }, REFRESH_MS);
  });
  return costs;
}

/** Each task's (or agent's…) cost by its key, for pages that show one beside each item. */
export function useCostMap(group_by: 'task' | 'agent'): ReadonlyMap<string, CostGroup> {
  const groups = useCosts({ group_by }).state.value?.data.groups;
  return useMemo(
    () => new Map((groups ?? []).flatMap((g) => (g.key ? [[g.key, g] as const] : []))),
    [groups],
  );
}
