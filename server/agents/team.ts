// Agents across a team's machines (built only when the hub is in a team, services.team): what this hub
// hears from its agents goes to the team, and what the other hubs heard arrives here, so presence, the
// activity view, the live stream and edit conflicts cover every machine.
//
// - Out: every hook event this hub keeps (with its agent's state), every change of an MCP session and
//   every recorded tool call is queued in the team outbox (team.enqueue): written in batches to
//   team_hook_events / team_agents / team_tool_calls, events and sessions also on the feed. Queueing is
//   a push onto an array, so a hook is answered exactly as fast as alone, and while the database is
//   away the outbox holds (bounded) and drains once it is back.
// - In: another hub's event becomes this hub's too: its agent in the registry (applyRemote, with the
//   files it edited, which is what conflicts read), the event among the hook store's (in memory: the
//   team's database holds it; kept once however often it arrives, by `<hub>:<id>`) and an
//   `agent-event` on the local bus, with machine and branch.
// - At start: the team's open agents and the other machines' latest events are read from PostgreSQL, so
//   a hub started late shows what they did and warns about an edit made before it started.
import type { Logger } from 'pino';
import type { EventBus } from '../events/bus.ts';
import { type BranchWatcher, watchBranch } from '../git/branch.ts';
import type { EventKind, HookClient, Phase } from '../hooks/normalize.ts';
import type { AgentSessionRow, HookEventRow, HookStore, StoredFile } from '../hooks/store.ts';
import type { CallRecorder, RetentionPolicy, SharedCall } from '../observability/calls.ts';
import type { SessionTracker, SharedSession } from '../observability/sessions.ts';
import type { Queryable } from '../team/database.ts';
import type { TeamEntry } from '../team/feed.ts';
import type { Team } from '../team/team.ts';
import type { AgentRegistry } from './registry.ts';

/** Feed and outbox kinds. */
export const AGENT_EVENT = 'agents.event';
export const MCP_SESSION = 'agents.mcp';
export const TOOL_CALL = 'agents.call';

/** A hook event as a hub tells its team: the row, and its agent's state after it (null: none known). */
interface EventBody {
  event: HookEventRow;
  agent: AgentSessionRow | null;
}

type SessionBody = SharedSession & { branch: string | null };
type CallBody = SharedCall & { id: number };

/** Origins remembered to keep an event that arrives twice (feed and load) once in memory too. */
const SEEN_LIMIT = 50_000;
/**
 * Other machines' events read at start at most (the newest, within retention): the activity view's
 * recent past and the conflict window's edits; older ones stay in PostgreSQL.
 */
const LOAD_LIMIT = 5_000;
const SWEEP_MS = 5_000;
const RETENTION_MS = 10 * 60_000;

export interface AgentsTeamDeps {
  team: Team;
  repo: string;
  store: HookStore;
  registry: AgentRegistry;
  sessions: SessionTracker;
  calls: CallRecorder | undefined;
  events: EventBus;
  logger: Logger;
  now: () => number;
  retention: RetentionPolicy;
  /** The project's agent timeout, read when needed (settings change). */
  timeoutMs: () => number;
  /** Presence changed (an agent of another machine came or went): the service publishes the counts. */
  presenceChanged: () => void;
}

export interface AgentsTeam {
  /** This hub's clone's branch (null until read, or outside git). */
  branch(): string | null;
  /**
   * Tells the team of an event this hub kept (`row` as stored, with its id), with its agent's state
   * (`agent`, or the registry's live one: an agent that just ended is no longer there).
   */
  shared(row: HookEventRow, agent?: AgentSessionRow): void;
  /** Reads the branch and the team's open agents and recent events. */
  start(): Promise<void>;
  close(): void;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A hook event row from another hub's entry, checked (the feed carries JSON); undefined if malformed. */
function eventOf(v: unknown): HookEventRow | undefined {
  const e = v as Partial<HookEventRow> | null;
  if (!e || num(e.id) === null || num(e.at) === null || typeof e.agent !== 'string') return undefined;
  if (typeof e.kind !== 'string' || typeof e.event !== 'string' || typeof e.summary !== 'string')
    return undefined;
  const files = Array.isArray(e.files)
    ? e.files.filter(
        (f): f is StoredFile => typeof f?.path === 'string' && (f.role === 'edit' || f.role === 'read'),
      )
    : [];
  const phase = e.phase === 'pre' || e.phase === 'post' || e.phase === 'failed' ? e.phase : null;
  return {
    id: e.id as number,
    at: e.at as number,
    agent: e.agent,
    client: (str(e.client) ?? 'unknown') as HookClient,
    event: e.event,
    kind: e.kind as EventKind,
    phase: phase as Phase | null,
    tool: str(e.tool),
    ok: typeof e.ok === 'boolean' ? e.ok : null,
    summary: e.summary,
    files,
    detail: e.detail && typeof e.detail === 'object' ? (e.detail as Record<string, unknown>) : {},
    machine: str(e.machine) ?? 'unknown',
    branch: str(e.branch),
  };
}

function agentOf(v: unknown): AgentSessionRow | null {
  const a = v as Partial<AgentSessionRow> | null;
  if (!a || typeof a.id !== 'string' || num(a.started_at) === null || num(a.last_event_at) === null)
    return null;
  return {
    id: a.id,
    client: (str(a.client) ?? 'unknown') as HookClient,
    model: str(a.model),
    cwd: str(a.cwd),
    started_at: a.started_at as number,
    last_event_at: a.last_event_at as number,
    activity: str(a.activity),
    events: num(a.events) ?? 0,
    ended_at: num(a.ended_at),
    end_reason: str(a.end_reason),
    machine: str(a.machine),
    branch: str(a.branch),
  };
}

function sessionOf(v: unknown): SessionBody | undefined {
  const s = v as Partial<SessionBody> | null;
  if (!s || typeof s.id !== 'string' || num(s.created_at) === null || num(s.last_activity_at) === null)
    return undefined;
  return {
    id: s.id,
    client_name: str(s.client_name),
    client_version: str(s.client_version),
    created_at: s.created_at as number,
    last_activity_at: s.last_activity_at as number,
    last_tool: str(s.last_tool),
    agent_session: str(s.agent_session),
    calls: num(s.calls) ?? 0,
    ended_at: num(s.ended_at),
    end_reason: str(s.end_reason),
    branch: str(s.branch),
  };
}

/** The state of an agent as it is written (no in-memory parts: the registry's edits map). */
const stateOf = (a: AgentSessionRow): AgentSessionRow => ({
  id: a.id,
  client: a.client,
  model: a.model,
  cwd: a.cwd,
  started_at: a.started_at,
  last_event_at: a.last_event_at,
  activity: a.activity,
  events: a.events,
  ended_at: a.ended_at,
  end_reason: a.end_reason,
  machine: a.machine,
  branch: a.branch,
});

/** The newest report of each agent in a batch (one statement may not update a row twice). */
function latestById<T extends { id: string }>(rows: T[], at: (r: T) => number): T[] {
  const out = new Map<string, T>();
  for (const r of rows) {
    const known = out.get(r.id);
    if (!known || at(known) <= at(r)) out.set(r.id, r);
  }
  return [...out.values()];
}

const UPSERT_AGENT_SET = `source = excluded.source, hub = excluded.hub, machine = excluded.machine,
  branch = excluded.branch, client = excluded.client, client_version = excluded.client_version,
  model = excluded.model, cwd = excluded.cwd, last_event_at = excluded.last_event_at,
  activity = excluded.activity, last_tool = excluded.last_tool, agent_session = excluded.agent_session,
  events = excluded.events, ended_at = excluded.ended_at, end_reason = excluded.end_reason`;

export function createAgentsTeam(deps: AgentsTeamDeps): AgentsTeam {
  const { team, store, registry, sessions, calls, events, logger, now } = deps;
  const { key, machine } = team;
  const branchWatcher: BranchWatcher = watchBranch(deps.repo);
  const branch = () => branchWatcher.current;
  const seen = new Set<string>();
  let callId = 0;
  let closed = false;
  let loadTimer: NodeJS.Timeout | undefined;
  const timers: NodeJS.Timeout[] = [];

  const remember = (origin: string): boolean => {
    if (seen.has(origin)) return false;
    seen.add(origin);
    if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value as string);
    return true;
  };

  // ---- out: the outbox's writers ----

  team.writer(AGENT_EVENT, async (q: Queryable, bodies: unknown[]) => {
    const list = bodies as EventBody[];
    await q.query(
      `INSERT INTO team_hook_events (team, hub, id, at, machine, branch, agent, client, event, kind, phase, tool, ok, summary, files, detail)
       SELECT $1, $2, x.id, x.at, $3, x.branch, x.agent, x.client, x.event, x.kind, x.phase, x.tool, x.ok, x.summary,
              coalesce(x.files, '[]'), coalesce(x.detail, '{}')
       FROM json_to_recordset($4::json) AS x(id bigint, at bigint, branch text, agent text, client text, event text,
            kind text, phase text, tool text, ok boolean, summary text, files jsonb, detail jsonb)
       ON CONFLICT DO NOTHING`,
      [key, team.hub, machine, JSON.stringify(list.map((b) => b.event))],
    );
    const agents = latestById(
      list.map((b) => b.agent).filter((a): a is AgentSessionRow => a !== null),
      (a) => a.last_event_at,
    );
    if (agents.length === 0) return;
    await q.query(
      `INSERT INTO team_agents AS a (team, id, source, hub, machine, branch, client, model, cwd, started_at,
              last_event_at, activity, events, ended_at, end_reason)
       SELECT $1, x.id, 'hooks', $2, $3, x.branch, x.client, x.model, x.cwd, x.started_at, x.last_event_at,
              x.activity, x.events, x.ended_at, x.end_reason
       FROM json_to_recordset($4::json) AS x(id text, branch text, client text, model text, cwd text,
            started_at bigint, last_event_at bigint, activity text, events integer, ended_at bigint, end_reason text)
       ON CONFLICT (team, id) DO UPDATE SET ${UPSERT_AGENT_SET}
       WHERE a.last_event_at <= excluded.last_event_at`,
      [key, team.hub, machine, JSON.stringify(agents)],
    );
  });

  team.writer(MCP_SESSION, async (q, bodies) => {
    const list = latestById(bodies as SessionBody[], (s) => s.last_activity_at);
    await q.query(
      `INSERT INTO team_agents AS a (team, id, source, hub, machine, branch, client, client_version, started_at,
              last_event_at, last_tool, agent_session, events, ended_at, end_reason)
       SELECT $1, x.id, 'mcp', $2, $3, x.branch, x.client_name, x.client_version, x.created_at,
              x.last_activity_at, x.last_tool, x.agent_session, x.calls, x.ended_at, x.end_reason
       FROM json_to_recordset($4::json) AS x(id text, branch text, client_name text, client_version text,
            created_at bigint, last_activity_at bigint, last_tool text, agent_session text, calls integer,
            ended_at bigint, end_reason text)
       ON CONFLICT (team, id) DO UPDATE SET ${UPSERT_AGENT_SET}
       WHERE a.last_event_at <= excluded.last_event_at`,
      [key, team.hub, machine, JSON.stringify(list)],
    );
  });

  team.writer(TOOL_CALL, async (q, bodies) => {
    await q.query(
      `INSERT INTO team_tool_calls (team, hub, id, machine, at, tool, module, transport, mcp_session, client_name,
              client_version, agent_session, duration_ms, ok, error_category, response_bytes, truncated)
       SELECT $1, $2, x.id, $3, x.at, x.tool, x.module, x.transport, x.mcp_session, x.client_name,
              x.client_version, x.agent_session, x.duration_ms, x.ok, x.error_category, x.response_bytes, x.truncated
       FROM json_to_recordset($4::json) AS x(id bigint, at bigint, tool text, module text, transport text,
            mcp_session text, client_name text, client_version text, agent_session text,
            duration_ms double precision, ok boolean, error_category text, response_bytes integer, truncated boolean)
       ON CONFLICT DO NOTHING`,
      [key, team.hub, machine, JSON.stringify(bodies)],
    );
  });

  sessions.share = (s) => team.enqueue(MCP_SESSION, { ...s, branch: branch() } satisfies SessionBody);
  if (calls)
    calls.share = (c) => team.enqueue(TOOL_CALL, { ...c, id: ++callId } satisfies CallBody, { feed: false });

  // ---- in: the other hubs' entries ----

  /** Keeps another hub's event (and its agent's state); `live` also streams it. */
  function apply(
    hub: string,
    from: string,
    event: HookEventRow,
    agent: AgentSessionRow | null,
    live: boolean,
  ) {
    if (!remember(`${hub}:${event.id}`)) return;
    let presence = false;
    if (agent !== null) {
      const edits =
        event.phase === 'post'
          ? event.files.filter((f) => f.role === 'edit').map((f) => ({ path: f.path, at: event.at }))
          : [];
      const r = registry.applyRemote({ ...agent, machine: from }, edits);
      presence = r.isNew || (agent.ended_at !== null && event.kind === 'session_end');
    }
    const { id: _id, ...row } = event;
    const stored = { ...row, machine: from };
    const id = store.addRemote(stored);
    if (!live) return;
    const { detail: _detail, ...data } = stored;
    events.publish('agent-event', { ...data, id });
    // Another machine's conflict is announced here as that hub announced it, with where it happened.
    if (stored.kind === 'conflict')
      events.publish('agent-conflict', {
        agent: stored.agent,
        client: stored.client,
        at: stored.at,
        ...stored.detail,
        machine: from,
        branch: stored.branch,
      });
    if (presence) deps.presenceChanged();
  }

  const offs = [
    team.feed.on(AGENT_EVENT, (entry: TeamEntry) => {
      const body = entry.body as Partial<EventBody> | null;
      const event = eventOf(body?.event);
      if (event) apply(entry.hub, entry.machine, event, agentOf(body?.agent), true);
    }),
    team.feed.on(MCP_SESSION, (entry: TeamEntry) => {
      const s = sessionOf(entry.body);
      if (s && sessions.applyRemote(s, entry.machine, s.branch)) deps.presenceChanged();
    }),
  ];

  // ---- at start: what the team did before this hub listened ----

  async function load(): Promise<void> {
    const at = now();
    const agentRows = await team.db.query<{
      id: string;
      source: string;
      machine: string;
      branch: string | null;
      client: string | null;
      client_version: string | null;
      model: string | null;
      cwd: string | null;
      started_at: string;
      last_event_at: string;
      activity: string | null;
      last_tool: string | null;
      agent_session: string | null;
      events: number;
    }>(
      `SELECT id, source, machine, branch, client, client_version, model, cwd, started_at, last_event_at,
              activity, last_tool, agent_session, events
       FROM team_agents WHERE team = $1 AND machine <> $2 AND ended_at IS NULL AND last_event_at >= $3`,
      [key, machine, at - deps.timeoutMs()],
    );
    // This machine's own events are in hub.db already (from whichever process of it took them).
    const eventRows = await team.db.query<{
      hub: string;
      id: string;
      at: string;
      machine: string;
      branch: string | null;
      agent: string;
      client: string;
      event: string;
      kind: string;
      phase: string | null;
      tool: string | null;
      ok: boolean | null;
      summary: string;
      files: unknown;
      detail: unknown;
    }>(
      `SELECT hub, id, at, machine, branch, agent, client, event, kind, phase, tool, ok, summary, files, detail
       FROM team_hook_events WHERE team = $1 AND machine <> $2 AND at >= $3
       ORDER BY at DESC, id DESC LIMIT $4`,
      [key, machine, at - deps.retention.maxAgeMs, LOAD_LIMIT],
    );
    let changed = false;
    const hookAgents = new Map<string, AgentSessionRow & { machine: string }>();
    for (const r of agentRows) {
      if (r.source === 'mcp') {
        const s: SharedSession = {
          id: r.id,
          client_name: r.client,
          client_version: r.client_version,
          created_at: Number(r.started_at),
          last_activity_at: Number(r.last_event_at),
          last_tool: r.last_tool,
          agent_session: r.agent_session,
          calls: r.events,
          ended_at: null,
          end_reason: null,
        };
        if (sessions.applyRemote(s, r.machine, r.branch)) changed = true;
        continue;
      }
      hookAgents.set(r.id, {
        id: r.id,
        client: (r.client ?? 'unknown') as HookClient,
        model: r.model,
        cwd: r.cwd,
        started_at: Number(r.started_at),
        last_event_at: Number(r.last_event_at),
        activity: r.activity,
        events: r.events,
        ended_at: null,
        end_reason: null,
        machine: r.machine,
        branch: r.branch,
      });
    }
    const edits = new Map<string, { path: string; at: number }[]>();
    for (const r of [...eventRows].reverse()) {
      const event = eventOf({ ...r, id: Number(r.id), at: Number(r.at) });
      if (!event) continue;
      if (event.phase === 'post' && hookAgents.has(event.agent)) {
        const list = edits.get(event.agent) ?? [];
        edits.set(event.agent, list);
        for (const f of event.files) if (f.role === 'edit') list.push({ path: f.path, at: event.at });
      }
      apply(r.hub, r.machine, event, null, false);
    }
    for (const agent of hookAgents.values())
      if (registry.applyRemote(agent, edits.get(agent.id) ?? []).isNew) changed = true;
    if (changed) deps.presenceChanged();
  }

  /** Loads at start; while the database is away, again a little later until it answers. */
  function loadUntilDone(delayMs: number): Promise<void> {
    return load().catch((err: unknown) => {
      if (closed) return;
      logger.warn(
        { scope: 'team', err: team.db.describe(err) },
        "the team's agents could not be read yet; retrying",
      );
      loadTimer = setTimeout(() => void loadUntilDone(Math.min(delayMs * 2, 5000)), delayMs);
      loadTimer.unref();
    });
  }

  async function sweepRetention(): Promise<void> {
    const cutoff = now() - deps.retention.maxAgeMs;
    try {
      await team.db.query('DELETE FROM team_hook_events WHERE team = $1 AND at < $2', [key, cutoff]);
      await team.db.query('DELETE FROM team_tool_calls WHERE team = $1 AND at < $2', [key, cutoff]);
      await team.db.query(
        'DELETE FROM team_agents WHERE team = $1 AND coalesce(ended_at, last_event_at) < $2',
        [key, cutoff],
      );
    } catch {
      // Retention waits for the next sweep.
    }
  }

  return {
    branch,
    shared(row, ended) {
      const agent = ended ?? registry.get(row.agent);
      const body: EventBody = {
        event: { ...row, machine, branch: row.branch },
        agent: agent && agent.machine === null ? stateOf(agent) : null,
      };
      team.enqueue(AGENT_EVENT, body);
    },
    async start() {
      await branchWatcher.start();
      await loadUntilDone(250);
      const sweep = setInterval(() => {
        // Another machine's MCP session its hub stopped reporting (the hub went away): gone after the
        // agent timeout, as a silent hook agent is.
        if (sessions.pruneRemote(now() - deps.timeoutMs())) deps.presenceChanged();
      }, SWEEP_MS);
      const retention = setInterval(() => void sweepRetention(), RETENTION_MS);
      sweep.unref();
      retention.unref();
      timers.push(sweep, retention);
    },
    close() {
      closed = true;
      for (const off of offs) off();
      for (const t of timers) clearInterval(t);
      clearTimeout(loadTimer);
      branchWatcher.close();
      sessions.share = undefined;
      if (calls) calls.share = undefined;
    },
  };
}
