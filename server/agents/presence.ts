// Who is here, as one list: every hook session and every MCP session, an MCP session shown inside the
// hook agent it is linked to (its calls named that hook session as agent_session). Every count the hub
// shows (the Activity page, the header, the hub summary, cos_presence_query) comes from this list.
// In a team it holds the other machines' agents too, each with its machine and branch.

import type { AgentSessionRow, HookStore } from '../hooks/store.ts';
import type { Lifecycle, SessionTracker, SessionView } from '../observability/sessions.ts';
import { ACTIVE_MS, PRESENT_MS } from '../observability/sessions.ts';
import type { AgentRegistry } from './registry.ts';

export interface AgentFile {
  path: string;
  at: number;
  times: number;
}

export interface AgentView {
  /** The hook session id, or the MCP session id of an agent seen only over MCP. */
  id: string;
  source: 'hooks' | 'mcp' | 'hooks+mcp';
  client: string | null;
  model: string | null;
  cwd: string | null;
  lifecycle: Lifecycle;
  started_at: number;
  last_activity_at: number;
  /** What it is doing now (hooks), or its last tool call (MCP only). */
  activity: string | null;
  last_tool: string | null;
  /** The id its claims are recorded under. */
  agent_session: string | null;
  mcp_sessions: string[];
  claimed_task: { id: string; title: string } | null;
  /** Files it edited, most recent first (at most 10; files_total counts them all). */
  files: AgentFile[];
  files_total: number;
  end_reason: string | null;
  /** The machine whose hub it reports to. */
  machine: string;
  /** That hub's clone's branch (null when the hub is not in a team). */
  branch: string | null;
}

export type LifecycleCounts = Record<Lifecycle, number>;

/** An MCP session whose requests all came in one burst and that then went silent: a one-shot client. */
export const ONE_SHOT_SPAN_MS = ACTIVE_MS;

function mcpLifecycle(s: SessionView, now: number): { lifecycle: Lifecycle; reason: string | null } {
  if (s.lifecycle === 'ended') return { lifecycle: 'ended', reason: s.end_reason };
  const silent = now - s.last_activity_at;
  if (silent > ACTIVE_MS && s.last_activity_at - s.created_at <= ONE_SHOT_SPAN_MS)
    return { lifecycle: 'ended', reason: 'one-shot client: silent since its only burst of requests' };
  return { lifecycle: s.lifecycle, reason: null };
}

function lifecycleByAge(age: number): Lifecycle {
  return age <= ACTIVE_MS ? 'active' : age <= PRESENT_MS ? 'present' : 'idle';
}

function clientLabel(s: SessionView): string | null {
  return s.client_name ? `${s.client_name}${s.client_version ? ` ${s.client_version}` : ''}` : null;
}

export interface PresenceDeps {
  registry: AgentRegistry;
  store: HookStore;
  sessions: SessionTracker;
  now: () => number;
  /** The in-progress task an agent session holds; null when there is none or the board is off. */
  claimedBy: (agentSession: string) => { id: string; title: string } | null;
  /** This hub's machine, and its clone's branch (null outside a team). */
  machine: string;
  branch: () => string | null;
}

/**
 * `counting`: only what the counts read (lifecycles), without each agent's claimed task and files, in no
 * order. The counts are published on every arrival and end, at hook rates; the claim is an index read
 * per agent, and sorting hundreds of a team's agents each time was most of the count.
 */
export function listAgents(
  deps: PresenceDeps,
  opts: { includeEnded: boolean; counting?: boolean },
): AgentView[] {
  const now = deps.now();
  const mcp = deps.sessions.list(opts.includeEnded ? 3600_000 : 0, opts.includeEnded ? 50 : 0);
  const hookRows: AgentSessionRow[] = opts.includeEnded
    ? deps.store.sessions({ endedSince: now - 3600_000, limit: 200 })
    : [];
  const live = deps.registry.list(!opts.counting);
  const byId = new Map<string, AgentView>();
  const viewOfHook = (row: AgentSessionRow): AgentView => {
    const agent = opts.counting ? undefined : deps.registry.get(row.id);
    const edited = agent ? [...agent.edited.entries()].reverse() : [];
    return {
      id: row.id,
      source: 'hooks',
      client: row.client,
      model: row.model,
      cwd: row.cwd,
      lifecycle: deps.registry.lifecycle(row, now),
      started_at: row.started_at,
      last_activity_at: row.last_event_at,
      activity: row.activity,
      last_tool: null,
      agent_session: row.id,
      mcp_sessions: [],
      claimed_task: null,
      files: edited.slice(0, 10).map(([path, e]) => ({ path, at: e.at, times: e.times })),
      files_total: edited.length,
      end_reason: row.end_reason,
      machine: row.machine ?? deps.machine,
      branch: row.branch,
    };
  };
  for (const agent of live) byId.set(agent.id, viewOfHook(agent));
  for (const row of hookRows) if (!byId.has(row.id)) byId.set(row.id, viewOfHook(row));

  const out: AgentView[] = [];
  for (const s of mcp) {
    const host = s.agent_session ? byId.get(s.agent_session) : undefined;
    const { lifecycle, reason } = mcpLifecycle(s, now);
    if (host) {
      // Linked: the hook session says whether the agent is there; the MCP session adds its calls.
      host.source = 'hooks+mcp';
      host.mcp_sessions.push(s.id);
      if (s.last_activity_at > host.last_activity_at) host.last_activity_at = s.last_activity_at;
      // Open sessions come most recent first, so the first linked one has the latest tool.
      host.last_tool ??= s.last_tool;
      if (host.lifecycle !== 'ended') host.lifecycle = lifecycleByAge(now - host.last_activity_at);
      continue;
    }
    out.push({
      id: s.id,
      source: 'mcp',
      client: clientLabel(s),
      model: null,
      cwd: null,
      lifecycle,
      started_at: s.created_at,
      last_activity_at: s.last_activity_at,
      activity: s.last_tool ? `called ${s.last_tool}` : null,
      last_tool: s.last_tool,
      agent_session: s.agent_session,
      mcp_sessions: [s.id],
      claimed_task: null,
      files: [],
      files_total: 0,
      end_reason: reason,
      machine: s.machine ?? deps.machine,
      branch: s.machine === null ? deps.branch() : s.branch,
    });
  }
  const all = [...byId.values(), ...out].filter((a) => opts.includeEnded || a.lifecycle !== 'ended');
  for (const a of all) {
    if (a.lifecycle === 'ended' || opts.counting) continue;
    a.claimed_task =
      deps.claimedBy(a.agent_session ?? a.id) ??
      a.mcp_sessions.map((id) => deps.claimedBy(id)).find((t) => t !== null) ??
      null;
  }
  if (opts.counting) return all;
  const rank: Record<Lifecycle, number> = { active: 0, present: 1, idle: 2, ended: 3 };
  return all.sort((a, b) => rank[a.lifecycle] - rank[b.lifecycle] || b.last_activity_at - a.last_activity_at);
}

export function countAgents(agents: readonly AgentView[]): LifecycleCounts {
  const counts: LifecycleCounts = { active: 0, present: 0, idle: 0, ended: 0 };
  for (const a of agents) counts[a.lifecycle]++;
  return counts;
}
