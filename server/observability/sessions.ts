// MCP sessions as people watching the hub see them: who is connected, with which client, what each did
// last, and a lifecycle computed from the time since its last request: active (≤ 30 s), present
// (≤ 5 min), idle (longer, still open), ended. The clock is injectable so tests can move time.
// In a team, each hub shares its MCP sessions (`share`, set by server/agents/team.ts) and keeps the
// other machines' open ones beside its own (`applyRemote`), so an agent that talks MCP without hooks
// shows on every hub too.
import type { Db } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';

export const ACTIVE_MS = 30_000;
export const PRESENT_MS = 5 * 60_000;

export type Lifecycle = 'active' | 'present' | 'idle' | 'ended';

/** What a hub tells its team of one of its MCP sessions. */
export interface SharedSession {
  id: string;
  client_name: string | null;
  client_version: string | null;
  created_at: number;
  last_activity_at: number;
  last_tool: string | null;
  agent_session: string | null;
  calls: number;
  ended_at: number | null;
  end_reason: string | null;
}

export interface SessionView extends SharedSession {
  lifecycle: Lifecycle;
  /** Another machine's session (null: this hub's own). */
  machine: string | null;
  /** That machine's hub's branch (null for this hub's own: its branch is the hub's). */
  branch: string | null;
}

/** How often a busy session's activity is shared at most: other hubs age it by its last report. */
export const SHARE_EVERY_MS = 10_000;

interface Remote extends SharedSession {
  machine: string;
  branch: string | null;
}

interface Live {
  id: string;
  client_name: string | null;
  client_version: string | null;
  created_at: number;
  last_activity_at: number;
  last_tool: string | null;
  agent_session: string | null;
  calls: number;
}

export function lifecycleOf(lastActivityAt: number, now: number): Exclude<Lifecycle, 'ended'> {
  const age = now - lastActivityAt;
  return age <= ACTIVE_MS ? 'active' : age <= PRESENT_MS ? 'present' : 'idle';
}

export class SessionTracker {
  private readonly live = new Map<string, Live>();
  private readonly lastLifecycle = new Map<string, Lifecycle>();
  private readonly timer: NodeJS.Timeout;
  private readonly upsert;
  private readonly finish;
  private readonly endedSince;
  private readonly byName;
  /**
   * The counts presence events carry. The hub points it at the agents service, which counts hook and
   * MCP sessions as one list; alone, the tracker counts its MCP sessions.
   */
  countsSource: (() => Record<Lifecycle, number>) | undefined;
  /** Where the sessions' news goes to the team (unset without one: nothing is shared). */
  share: ((session: SharedSession) => void) | undefined;
  private readonly sharedAt = new Map<string, number>();
  /** The other machines' open sessions, by id. */
  private readonly remote = new Map<string, Remote>();

  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    readonly now: () => number = Date.now,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO mcp_sessions (id, client_name, client_version, created_at, last_activity_at, last_tool, agent_session, calls)
       VALUES (@id, @client_name, @client_version, @created_at, @last_activity_at, @last_tool, @agent_session, @calls)
       ON CONFLICT (id) DO UPDATE SET client_name = excluded.client_name, client_version = excluded.client_version,
         last_activity_at = excluded.last_activity_at, last_tool = excluded.last_tool,
         agent_session = excluded.agent_session, calls = excluded.calls`,
    );
    this.endedSince = db.prepare(
      `SELECT id, client_name, client_version, created_at, last_activity_at, last_tool, agent_session, calls, ended_at, end_reason
       FROM mcp_sessions WHERE ended_at IS NOT NULL AND ended_at >= ? ORDER BY ended_at DESC LIMIT ?`,
    );
    this.byName = db.prepare(
      `SELECT id, client_name, client_version, created_at, last_activity_at, last_tool, agent_session, calls, ended_at, end_reason
       FROM mcp_sessions WHERE ended_at IS NOT NULL AND (id = ? OR agent_session = ?) ORDER BY ended_at DESC LIMIT 20`,
    );
    this.finish = db.prepare(
      'UPDATE mcp_sessions SET ended_at = ?, end_reason = ?, last_activity_at = ?, last_tool = ?, agent_session = ?, calls = ? WHERE id = ?',
    );
    this.timer = setInterval(() => this.checkLifecycles(), 5_000);
    this.timer.unref();
  }

  /**
   * Marks the sessions a hub that died left open as ended. Only the hub that serves (hub.start(), after
   * it listens) may: a `cos` command opening the same state directory while a hub runs must not end
   * that hub's live sessions.
   */
  endOrphans(): void {
    // The sessions this hub opened already (it may answer before start() runs) are its own, not orphans.
    this.db
      .prepare(
        "UPDATE mcp_sessions SET ended_at = last_activity_at, end_reason = 'hub restarted' WHERE ended_at IS NULL AND id NOT IN (SELECT value FROM json_each(?))",
      )
      .run(JSON.stringify([...this.live.keys()]));
  }

  started(id: string, client: { name?: string; version?: string } | undefined): void {
    const at = this.now();
    const live: Live = {
      id,
      client_name: client?.name ?? null,
      client_version: client?.version ?? null,
      created_at: at,
      last_activity_at: at,
      last_tool: null,
      agent_session: null,
      calls: 0,
    };
    this.live.set(id, live);
    this.upsert.run(live);
    this.lastLifecycle.set(id, 'active');
    if (this.share) this.shareLive(live, at);
    this.publish();
  }

  private shareLive(live: Live, at: number): void {
    this.sharedAt.set(live.id, at);
    this.share?.({ ...live, ended_at: null, end_reason: null });
  }

  touched(id: string, client?: { name?: string; version?: string }): void {
    const live = this.live.get(id);
    if (!live) return;
    live.last_activity_at = this.now();
    // initialize's clientInfo is set after the session is created: take it on the next request, so a
    // client that never calls a tool still shows its name.
    if (!live.client_name && client?.name) {
      live.client_name = client.name;
      live.client_version = client.version ?? null;
    }
    if (this.share && live.last_activity_at - (this.sharedAt.get(id) ?? 0) >= SHARE_EVERY_MS)
      this.shareLive(live, live.last_activity_at);
    if (this.lastLifecycle.get(id) !== 'active') this.checkLifecycles();
  }

  called(
    id: string,
    tool: string,
    agentSession: string | null,
    clientName?: string,
    clientVersion?: string,
  ): void {
    const live = this.live.get(id);
    if (!live) return;
    live.last_activity_at = this.now();
    live.last_tool = tool;
    live.calls++;
    if (agentSession) live.agent_session = agentSession;
    if (clientName && !live.client_name) {
      live.client_name = clientName;
      live.client_version = clientVersion ?? null;
    }
    if (this.share && live.last_activity_at - (this.sharedAt.get(id) ?? 0) >= SHARE_EVERY_MS)
      this.shareLive(live, live.last_activity_at);
    if (this.lastLifecycle.get(id) !== 'active') this.checkLifecycles();
  }

  ended(id: string, reason: string): void {
    const live = this.live.get(id);
    if (!live) return;
    this.live.delete(id);
    this.lastLifecycle.delete(id);
    const at = this.now();
    if (this.share) {
      this.sharedAt.delete(id);
      this.share({ ...live, ended_at: at, end_reason: reason });
    }
    this.finish.run(at, reason, live.last_activity_at, live.last_tool, live.agent_session, live.calls, id);
    this.publish();
  }

  /**
   * Takes another machine's session as its hub shared it: kept while open, forgotten when it ends.
   * Returns whether the set of open sessions changed (presence is published then).
   */
  applyRemote(session: SharedSession, machine: string, branch: string | null): boolean {
    if (this.live.has(session.id)) return false;
    const known = this.remote.get(session.id);
    if (known && known.last_activity_at > session.last_activity_at) return false;
    if (session.ended_at !== null) return this.remote.delete(session.id);
    this.remote.set(session.id, { ...session, machine, branch });
    return known === undefined;
  }

  /** Forgets the other machines' sessions silent since before `cutoff` (their hub may be gone). */
  pruneRemote(cutoff: number): boolean {
    let changed = false;
    for (const [id, s] of this.remote)
      if (s.last_activity_at < cutoff) {
        this.remote.delete(id);
        changed = true;
      }
    return changed;
  }

  private openViews(now: number, keep: (s: Live) => boolean = () => true): SessionView[] {
    const out: SessionView[] = [];
    for (const s of this.live.values())
      if (keep(s))
        out.push({
          ...s,
          lifecycle: lifecycleOf(s.last_activity_at, now),
          ended_at: null,
          end_reason: null,
          machine: null,
          branch: null,
        });
    for (const s of this.remote.values())
      if (keep(s)) out.push({ ...s, lifecycle: lifecycleOf(s.last_activity_at, now) });
    return out;
  }

  /** Open sessions, then those that ended in the last `endedWithinMs`, most recent first. */
  list(endedWithinMs = 3600_000, endedLimit = 50): SessionView[] {
    const now = this.now();
    const open = this.openViews(now).sort((a, b) => b.last_activity_at - a.last_activity_at);
    // Presence asks for open sessions alone on every hook event it counts: no query for them.
    const ended =
      endedLimit === 0
        ? []
        : (this.endedSince.all(now - endedWithinMs, endedLimit) as Omit<
            SessionView,
            'lifecycle' | 'machine' | 'branch'
          >[]);
    return [
      ...open,
      ...ended.map((s) => ({ ...s, lifecycle: 'ended' as const, machine: null, branch: null })),
    ];
  }

  /** Every session with this id or naming it as agent_session: open ones, then those ended (newest first). */
  find(idOrAgentSession: string): SessionView[] {
    const open = this.openViews(
      this.now(),
      (s) => s.id === idOrAgentSession || s.agent_session === idOrAgentSession,
    );
    const ended = this.byName.all(idOrAgentSession, idOrAgentSession) as Omit<
      SessionView,
      'lifecycle' | 'machine' | 'branch'
    >[];
    return [
      ...open,
      ...ended.map((s) => ({ ...s, lifecycle: 'ended' as const, machine: null, branch: null })),
    ];
  }

  get openCount(): number {
    return this.live.size;
  }

  /** Persists activity of open sessions (called with the call recorder's flush) and publishes lifecycle changes. */
  checkLifecycles(): void {
    const now = this.now();
    let changed = false;
    for (const s of this.live.values()) {
      const lc = lifecycleOf(s.last_activity_at, now);
      if (this.lastLifecycle.get(s.id) !== lc) {
        this.lastLifecycle.set(s.id, lc);
        changed = true;
        this.upsert.run(s);
      }
    }
    if (changed) this.publish();
  }

  counts(): Record<Lifecycle, number> {
    const now = this.now();
    const counts: Record<Lifecycle, number> = { active: 0, present: 0, idle: 0, ended: 0 };
    for (const s of this.live.values()) counts[lifecycleOf(s.last_activity_at, now)]++;
    return counts;
  }

  private publish(): void {
    this.events.publish('presence-updated', {
      counts: this.countsSource?.() ?? this.counts(),
      open: this.live.size,
    });
  }

  close(): void {
    clearInterval(this.timer);
    for (const s of this.live.values()) this.upsert.run(s);
  }
}
