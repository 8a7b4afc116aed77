// Hook sessions as live agents: one per client session_id, from the first event the hub sees of it to
// SessionEnd, or to silence longer than the project's agent timeout. Unlike MCP sessions, a hook session
// outlives a hub restart (the agent never knew the hub went away), so open sessions are loaded back.
// In a team the other machines' agents live here too (applyRemote, from the feed): edit conflicts and
// presence count them as they count this hub's own, from memory.
import type { HookClient, NormalizedEvent } from '../hooks/normalize.ts';
import type { AgentSessionRow, HookStore } from '../hooks/store.ts';
import { ACTIVE_MS, type Lifecycle, PRESENT_MS } from '../observability/sessions.ts';

export interface HookAgent extends AgentSessionRow {
  /** Files it edited: stored path → latest time and count (most recent last). */
  edited: Map<string, { at: number; times: number }>;
}

const MAX_EDITED_REMEMBERED = 200;

/** What an agent is doing, in a few words, from the event that just arrived. */
function activityOf(ev: NormalizedEvent): string | null {
  switch (ev.kind) {
    case 'session_start':
      return 'starting';
    case 'session_end':
      return null;
    case 'prompt':
      return 'working on a prompt';
    case 'stop':
      return 'waiting for input';
    case 'notification':
      return ev.summary;
    case 'compact':
      return 'compacting its context';
    default:
      if (ev.phase === 'pre') return `running ${ev.summary}`;
      if (ev.phase !== null) return `ran ${ev.summary}`;
      return ev.summary;
  }
}

export class AgentRegistry {
  private readonly live = new Map<string, HookAgent>();
  private readonly lastLifecycle = new Map<string, Lifecycle>();
  /**
   * Stored path → the live agents whose `edited` holds it: an edit's conflict check reads the few
   * agents that touched its files, not every agent of the team (hundreds, with many machines).
   */
  private readonly editors = new Map<string, Set<HookAgent>>();

  constructor(
    private readonly store: HookStore,
    private readonly now: () => number,
    private readonly timeoutMs: () => number,
  ) {
    const cutoff = now() - timeoutMs();
    for (const row of store.sessions({ endedSince: Number.MAX_SAFE_INTEGER, limit: 10_000 })) {
      if (row.ended_at !== null) continue;
      if (row.last_event_at < cutoff) this.end({ ...row, edited: new Map() }, row.last_event_at, 'silent');
      else this.live.set(row.id, { ...row, edited: new Map() });
    }
  }

  /**
   * Records an event of a session: creates the agent on its first event, ends it on SessionEnd.
   * `branch` is the hub's clone's (null outside a team).
   */
  seen(
    ev: NormalizedEvent,
    at: number,
    storedFiles: readonly { path: string; role: string }[],
    branch: string | null = null,
  ): HookAgent {
    let agent = this.live.get(ev.session);
    if (!agent) {
      agent = {
        id: ev.session,
        client: ev.client,
        model: null,
        cwd: null,
        started_at: at,
        last_event_at: at,
        activity: null,
        events: 0,
        ended_at: null,
        end_reason: null,
        machine: null,
        branch,
        edited: new Map(),
      };
      this.live.set(ev.session, agent);
    }
    // A session this hub hears from is this hub's agent, whatever another hub said of it before.
    agent.machine = null;
    agent.branch = branch;
    if (agent.client === 'unknown' && ev.client !== 'unknown') agent.client = ev.client as HookClient;
    if (ev.model) agent.model = ev.model;
    if (ev.cwd) agent.cwd = ev.cwd;
    agent.last_event_at = at;
    agent.events++;
    const activity = activityOf(ev);
    if (activity !== null) agent.activity = activity;
    if (ev.phase === 'post')
      for (const f of storedFiles) if (f.role === 'edit') this.rememberEdit(agent, f.path, at);
    if (ev.kind === 'session_end') this.end(agent, at, ev.reason ?? 'session ended');
    else this.store.saveSession(agent);
    return agent;
  }

  /**
   * Takes another machine's agent as its hub reported it (`state`, machine set), with the files an
   * event of it edited. A report older than what is known changes nothing but the edits. Returns the
   * live agent (undefined once it ended) and whether it is new here.
   */
  applyRemote(
    state: AgentSessionRow,
    edits: readonly { path: string; at: number }[] = [],
  ): { agent: HookAgent | undefined; isNew: boolean } {
    let agent = this.live.get(state.id);
    const isNew = agent === undefined && state.ended_at === null;
    if (agent && agent.machine === null) return { agent, isNew: false };
    if (agent && agent.last_event_at > state.last_event_at) {
      for (const e of edits) this.rememberEdit(agent, e.path, e.at);
      return { agent, isNew: false };
    }
    if (state.ended_at !== null) {
      if (agent) this.end(Object.assign(agent, state), state.ended_at, state.end_reason ?? 'session ended');
      else this.store.saveSession(state);
      return { agent: undefined, isNew: false };
    }
    if (!agent) {
      agent = { ...state, edited: new Map() };
      this.live.set(state.id, agent);
    } else Object.assign(agent, state);
    for (const e of edits) this.rememberEdit(agent, e.path, e.at);
    this.store.saveSession(agent);
    return { agent, isNew };
  }

  private rememberEdit(agent: HookAgent, path: string, at: number): void {
    const prior = agent.edited.get(path);
    agent.edited.delete(path);
    agent.edited.set(path, { at, times: (prior?.times ?? 0) + 1 });
    const set = this.editors.get(path);
    if (set) set.add(agent);
    else this.editors.set(path, new Set([agent]));
    if (agent.edited.size > MAX_EDITED_REMEMBERED) {
      const oldest = agent.edited.keys().next().value as string;
      agent.edited.delete(oldest);
      this.forgetEditor(agent, oldest);
    }
  }

  private forgetEditor(agent: HookAgent, path: string): void {
    const set = this.editors.get(path);
    if (!set) return;
    set.delete(agent);
    if (set.size === 0) this.editors.delete(path);
  }

  private end(agent: HookAgent, at: number, reason: string): void {
    agent.ended_at = at;
    agent.end_reason = reason;
    agent.activity = null;
    for (const path of agent.edited.keys()) this.forgetEditor(agent, path);
    this.live.delete(agent.id);
    this.lastLifecycle.delete(agent.id);
    this.store.saveSession(agent);
  }

  lifecycle(agent: AgentSessionRow, now = this.now()): Lifecycle {
    if (agent.ended_at !== null) return 'ended';
    const age = now - agent.last_event_at;
    if (age > this.timeoutMs()) return 'ended';
    return age <= ACTIVE_MS ? 'active' : age <= PRESENT_MS ? 'present' : 'idle';
  }

  get(id: string): HookAgent | undefined {
    return this.live.get(id);
  }

  /**
   * Live agents (not ended, not silent past the timeout), most recently heard first; in no order with
   * `sorted: false` (presence counts them on every arrival).
   */
  list(sorted = true): HookAgent[] {
    const now = this.now();
    const live = [...this.live.values()].filter((a) => this.lifecycle(a, now) !== 'ended');
    return sorted ? live.sort((a, b) => b.last_event_at - a.last_event_at) : live;
  }

  /**
   * The live agents (as list() has them, most recently heard first) that edited any of `paths` (stored
   * form) while the hub remembers it: the last 200 files of each.
   */
  editorsOf(paths: readonly string[]): HookAgent[] {
    const now = this.now();
    const found = new Set<HookAgent>();
    for (const path of paths)
      for (const agent of this.editors.get(path) ?? [])
        if (this.lifecycle(agent, now) !== 'ended') found.add(agent);
    return [...found].sort((a, b) => b.last_event_at - a.last_event_at);
  }

  /** Whether the agent behind this session id is alive (a live hook session). */
  isAlive(id: string): boolean {
    const agent = this.live.get(id);
    return agent !== undefined && this.lifecycle(agent) !== 'ended';
  }

  /**
   * Ends agents silent past the timeout and reports whether any lifecycle changed, so presence can be
   * published only when it did.
   */
  sweep(): boolean {
    const now = this.now();
    let changed = false;
    for (const agent of [...this.live.values()]) {
      const lc = this.lifecycle(agent, now);
      if (lc === 'ended') {
        this.end(agent, agent.last_event_at, `silent for ${Math.round(this.timeoutMs() / 60_000)} min`);
        changed = true;
      } else if (this.lastLifecycle.get(agent.id) !== lc) {
        this.lastLifecycle.set(agent.id, lc);
        changed = true;
      }
    }
    return changed;
  }

  /** Marks the agent's lifecycle as seen, returning whether it changed (for presence events). */
  noteLifecycle(agent: HookAgent): boolean {
    const lc = this.lifecycle(agent);
    if (this.lastLifecycle.get(agent.id) === lc) return false;
    this.lastLifecycle.set(agent.id, lc);
    return true;
  }
}
