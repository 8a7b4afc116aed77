// Reclaim: a task held by an agent that is gone goes back to the ready queue. Gone means its hook
// session ended (SessionEnd), or every session the claim names (the hook session, MCP sessions with that
// id or naming it as agent_session) has been silent longer than the project's claim grace. An MCP session
// the hub closed itself (a restart) counts as silence, not an end: the agent may simply reconnect. A
// claim under a name the hub has never seen is reported as unknown and left alone.
import type { AgentSessionRow, HookStore } from '../hooks/store.ts';
import type { SessionTracker, SessionView } from '../observability/sessions.ts';
import type { AgentRegistry } from './registry.ts';

export type ClaimantState = 'alive' | 'ended' | 'silent' | 'unknown';

export interface ClaimView {
  task: { id: string; title: string };
  agent_session: string | null;
  state: ClaimantState;
  /** The latest sign of life of any session the claim names, ms since the epoch. */
  last_seen_at: number | null;
  reason: string;
}

export interface ClaimantFacts {
  hook: AgentSessionRow | undefined;
  mcp: readonly SessionView[];
}

/**
 * What the hub knows of the sessions a claim (or a reservation) names: the hook session, and the MCP
 * sessions with that id or naming it; a claim made under an MCP session that named a hook session
 * belongs to that hook session too.
 */
export function claimantFacts(
  agentSession: string,
  from: { registry: AgentRegistry; store: HookStore },
  sessions: SessionTracker,
): ClaimantFacts {
  const facts: ClaimantFacts = {
    hook: from.registry.get(agentSession) ?? from.store.session(agentSession),
    mcp: sessions.find(agentSession),
  };
  const linked = facts.mcp
    .map((m) => m.agent_session)
    .find((a): a is string => a !== null && a !== agentSession);
  if (!facts.hook && linked) facts.hook = from.registry.get(linked) ?? from.store.session(linked);
  return facts;
}

const HUB_CLOSED = new Set(['hub restarted', 'hub closed', 'closed']);

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 1 ? 'less than a minute' : `${m} min`;
}

/** What the hub knows of the agent behind one claim. */
export function claimantState(
  agentSession: string | null,
  facts: ClaimantFacts,
  now: number,
  graceMs: number,
): { state: ClaimantState; last_seen_at: number | null; reason: string } {
  if (!agentSession)
    return { state: 'unknown', last_seen_at: null, reason: 'the task names no agent session' };
  const { hook, mcp } = facts;
  const times = [hook?.last_event_at, ...mcp.map((s) => s.last_activity_at)].filter(
    (t): t is number => t !== undefined,
  );
  const last = times.length > 0 ? Math.max(...times) : null;
  if (last === null)
    return { state: 'unknown', last_seen_at: null, reason: `the hub has never seen ${agentSession}` };
  const openMcp = mcp.some((s) => s.lifecycle !== 'ended');
  if (hook?.ended_at != null && !openMcp)
    return {
      state: 'ended',
      last_seen_at: last,
      reason: `its session ended (${hook.end_reason ?? 'SessionEnd'}) ${minutes(now - hook.ended_at)} ago`,
    };
  if (
    !hook &&
    mcp.length > 0 &&
    !openMcp &&
    mcp.every((s) => s.end_reason !== null && !HUB_CLOSED.has(s.end_reason))
  )
    return {
      state: 'ended',
      last_seen_at: last,
      reason: `its MCP session ended (${mcp[0]?.end_reason}) ${minutes(now - last)} ago`,
    };
  if (now - last > graceMs)
    return {
      state: 'silent',
      last_seen_at: last,
      reason: `silent for ${minutes(now - last)} (grace ${minutes(graceMs)})`,
    };
  return { state: 'alive', last_seen_at: last, reason: `seen ${minutes(now - last)} ago` };
}
