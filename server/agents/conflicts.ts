// Edit conflicts: before an agent edits a file, does another live agent hold it? Either that agent edited
// it within the project's conflict window, or the file is among the references of a task that agent has
// claimed. Answered from memory (the live agents' recent edits and the claims the board reports), so a
// PreToolUse answer costs microseconds, not a query. In a team the other machines' agents are in the
// registry too (their hubs' events reach this one through the feed), and a task claimed on another
// machine holds its files wherever the claimant is: a hit names that agent's machine and branch.
import { agentLabel } from './labels.ts';
import type { AgentRegistry } from './registry.ts';

export interface Claim {
  task: { id: string; title: string };
  /** The agent_session the task is claimed by. */
  agent: string;
  /** Repository-relative paths the task's references name. */
  paths: readonly string[];
  /** The machine the task was claimed on when it is another one; null for this hub's own (or unknown). */
  machine: string | null;
}

export interface ConflictHit {
  path: string;
  /** The other agent's id (its hook session). */
  agent: string;
  client: string;
  reason: 'edited' | 'claimed';
  /** When the other agent last edited the file (reason edited). */
  at: number | null;
  task: { id: string; title: string } | null;
  /** The other agent's machine when it is not this hub's (null: this hub's own agent). */
  machine: string | null;
  /** Its hub's branch (null when not known). */
  branch: string | null;
}

export interface ConflictDeps {
  registry: AgentRegistry;
  now: () => number;
  windowMs: () => number;
  /** Tasks in progress and who holds them; empty when the board is off. */
  claims: () => readonly Claim[];
  /** The hook agent an agent_session belongs to (itself, or the hook session an MCP session is linked to). */
  agentOf: (agentSession: string) => string | null;
}

/** The conflicts an edit of `paths` (stored form) by agent `me` would run into. */
export function findConflicts(paths: readonly string[], me: string, deps: ConflictDeps): ConflictHit[] {
  if (paths.length === 0) return [];
  const hits: ConflictHit[] = [];
  const since = deps.now() - deps.windowMs();
  for (const other of deps.registry.editorsOf(paths)) {
    if (other.id === me) continue;
    for (const path of paths) {
      const edit = other.edited.get(path);
      if (edit && edit.at >= since)
        hits.push({
          path,
          agent: other.id,
          client: other.client,
          reason: 'edited',
          at: edit.at,
          task: null,
          machine: other.machine,
          branch: other.branch,
        });
    }
  }
  const relative = paths.filter((p) => !p.startsWith('/'));
  if (relative.length > 0) {
    for (const claim of deps.claims()) {
      let holder = deps.agentOf(claim.agent);
      // A claim made on another machine holds until its own hub reclaims it (only that hub knows
      // whether its claimant is alive): it counts even when this hub has not heard of the agent.
      if (claim.machine !== null) holder ??= claim.agent;
      else if (holder === null || !deps.registry.isAlive(holder)) continue;
      if (holder === me) continue;
      const known = deps.registry.get(holder);
      for (const path of relative) {
        if (!claim.paths.some((ref) => ref === path || path.startsWith(`${ref.replace(/\/$/, '')}/`)))
          continue;
        if (hits.some((h) => h.path === path && h.agent === holder)) {
          const h = hits.find((x) => x.path === path && x.agent === holder);
          if (h) h.task = claim.task;
          continue;
        }
        hits.push({
          path,
          agent: holder,
          client: known?.client ?? 'unknown',
          reason: 'claimed',
          at: null,
          task: claim.task,
          machine: claim.machine ?? known?.machine ?? null,
          branch: known?.branch ?? null,
        });
      }
    }
  }
  return hits;
}

/** The conflicts in a few clauses (the first three, and how many more), for a sentence of one's own. */
export function describeHits(hits: readonly ConflictHit[], now: number): string {
  const parts = hits.slice(0, 3).map((h) => {
    // A hit's machine is set only for another machine's agent: the label then says where it works.
    const branch = h.machine !== null && h.branch ? ` (branch ${h.branch})` : '';
    const who = `${agentLabel({ client: h.client, id: h.agent, machine: h.machine })}${branch}`;
    const task = h.task ? ` which holds ${h.task.id} "${h.task.title}"` : '';
    if (h.reason === 'edited' && h.at !== null) {
      const mins = Math.max(0, Math.round((now - h.at) / 60_000));
      return `${h.path} was edited ${mins === 0 ? 'less than a minute' : `${mins} min`} ago by ${who}${task}`;
    }
    return `${h.path} belongs to ${h.task?.id ?? 'a task'} "${h.task?.title ?? ''}" claimed by ${who}`;
  });
  const more = hits.length > 3 ? ` (and ${hits.length - 3} more)` : '';
  return `${parts.join('; ')}${more}`;
}

/** One sentence an agent (and the person watching) can act on. */
export function describeConflicts(hits: readonly ConflictHit[], now: number): string {
  return `cos hub: ${describeHits(hits, now)}. Coordinate before editing (cos_presence_query shows who is working on what).`;
}
