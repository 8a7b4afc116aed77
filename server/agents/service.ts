// The agents the hub sees through their lifecycle hooks: ingest (validate, redact, store, stream, answer),
// presence (hook and MCP sessions as one list), edit conflicts, and the graph and docs refreshed at once
// for the files an agent edited, attributed to it. Per-repository state lives here, not in module
// singletons, so a hub serving several repositories can hold one of these per repository.
import type { Logger } from 'pino';
import { parseTaskId } from '../board/model.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import { sessionMap } from '../graph/queries/overview.ts';
import { answerFor, type HookAnswer, withContext } from '../hooks/answer.ts';
import { type NormalizedEvent, normalizeHookPayload } from '../hooks/normalize.ts';
import { createRedactor } from '../hooks/redact.ts';
import { HookSettingsStore } from '../hooks/settings.ts';
import { type HookEventRow, HookStore, type StoredFile } from '../hooks/store.ts';
import type { HubServices } from '../hub-services.ts';
import type { ModuleState } from '../modules.ts';
import type { SessionTracker } from '../observability/sessions.ts';
import { type Claim, type ConflictHit, describeConflicts, findConflicts } from './conflicts.ts';
import { createRepoPaths, type RepoPaths } from './paths.ts';
import { type AgentView, countAgents, type LifecycleCounts, listAgents } from './presence.ts';
import { type ClaimView, claimantFacts, claimantState } from './reclaim.ts';
import { AgentRegistry, type HookAgent } from './registry.ts';
import { type AgentsTeam, createAgentsTeam } from './team.ts';

declare module '../hub-services.ts' {
  interface HubServices {
    agents: AgentsService;
  }
}

export interface AgentsServiceDeps {
  config: Config;
  db: Db;
  events: EventBus;
  logger: Logger;
  modules: ModuleState;
  sessions: SessionTracker;
  /** The hub's services, read at call time: the board (claims), the graph and docs (refresh). */
  services: HubServices;
  now: () => number;
}

/** What the live stream carries for each hook event (the stored row, without its detail). */
export type AgentEventData = Pick<
  HookEventRow,
  | 'id'
  | 'at'
  | 'agent'
  | 'client'
  | 'event'
  | 'kind'
  | 'phase'
  | 'tool'
  | 'ok'
  | 'summary'
  | 'files'
  | 'machine'
  | 'branch'
>;

export interface ReclaimResult {
  dry_run: boolean;
  grace_minutes: number;
  entries: (ClaimView & { reclaimable: boolean; released: boolean })[];
}

export interface AgentsService {
  readonly settings: HookSettingsStore;
  readonly store: HookStore;
  readonly registry: AgentRegistry;
  readonly paths: RepoPaths;
  /** Takes one hook payload and answers it in the client's own output format. Throws HookPayloadError. */
  /** The client's hook output; a promise on SessionStart, which waits a bounded moment for the map. */
  ingest(body: unknown, clientHint: string | undefined): HookAnswer | Promise<HookAnswer>;
  agents(opts?: { includeEnded?: boolean }): AgentView[];
  counts(): LifecycleCounts;
  /** Whether the agent behind an agent_session (hook session, MCP session or the session an MCP one names) is here. */
  isAlive(agentSession: string): boolean;
  /** Tasks in progress, each with what the hub knows of its claimant (alive, ended, silent, unknown). */
  claims(): ClaimView[];
  /**
   * Lists claims whose claimant is gone (ended, or silent past the claim grace) and, unless dryRun,
   * returns those tasks to the ready queue with the reason in their history.
   */
  reclaim(opts: { dryRun: boolean; task?: string; graceMinutes?: number }): Promise<ReclaimResult>;
  /** Releases every dead claim now (claim-next runs it first, so a dead claim's task is free at once). */
  sweepClaims(): Promise<ReclaimResult>;
  /** Records an event on an agent's timeline that no hook reported (a claim, a reservation's change). */
  note(agent: string, kind: 'claim' | 'reservation', summary: string, detail: Record<string, unknown>): void;
  /** Settles when every refresh the edits so far asked for has run (tests). */
  idle(): Promise<void>;
  /** Starts the sweeps; in a team, first reads the team's open agents and recent events. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const REFRESH_DELAY_MS = 100;
/**
 * Hits a conflict event keeps (the newest agents first; `more_hits` counts the rest): its message names
 * three, and a file edited by hundreds of agents of a team must not make every edit of it write, stream
 * and send to every hub a list of them all.
 */
export const MAX_RECORDED_HITS = 20;
const SWEEP_MS = 5_000;
const CLAIM_SWEEP_MS = 60_000;
/**
 * A claim-next within this long of the last sweep, with no agent's presence changed since, reuses it:
 * every claim-next sweeps first, and a sweep judges every claim in progress (on a board with a thousand
 * of them, 16 agents claiming spent a fifth of the hub's CPU there). What it can miss in that second is
 * a claimant crossing its grace of silence, which the next sweep takes.
 */
const SWEEP_REUSE_MS = 1_000;

export function createAgentsService(deps: AgentsServiceDeps): AgentsService {
  const { config, db, events, logger, modules, sessions, services, now } = deps;
  const settings = new HookSettingsStore(config.stateDir);
  if (settings.loadError) logger.warn({ scope: 'hooks' }, settings.loadError);
  // In a team, the machine is the team's; alone, the configured one (events and agents name it).
  const team = (services as Partial<HubServices>).team;
  const machine = team?.machine ?? config.machine;
  const store = new HookStore(db, machine);
  const timeoutMs = () => settings.get().agent_timeout_minutes * 60_000;
  const windowMs = () => settings.get().conflict_window_minutes * 60_000;
  const registry = new AgentRegistry(store, now, timeoutMs);
  const paths = createRepoPaths(config.repo);
  const redact = createRedactor(config.token ? [config.token] : []);
  let sweeper: NodeJS.Timeout | undefined;
  let retention: NodeJS.Timeout | undefined;
  let claimSweeper: NodeJS.Timeout | undefined;

  const claimedBy = (agentSession: string) => {
    const board = (services as Partial<HubServices>).board;
    return board && modules.isEnabled('tasks') ? board.claimedBy(agentSession) : null;
  };
  // Tasks in progress and the files their references name: an agent's claimed task holds those files.
  const claims = (): readonly Claim[] => {
    const board = (services as Partial<HubServices>).board;
    if (!board || !modules.isEnabled('tasks')) return [];
    return board
      .inProgress()
      .filter((t) => t.agent_session !== null && t.paths.length > 0)
      .map((t) => ({
        task: { id: t.id, title: t.title },
        agent: t.agent_session as string,
        paths: t.paths,
        machine: foreign(t.machine),
      }));
  };
  /** A claim's machine when it is another machine's (claims of this one, or without a team: null). */
  const foreign = (m: string | null): string | null => (m !== null && m !== machine ? m : null);
  // The team's glue, only in a team: without one nothing here changes.
  const teamAgents: AgentsTeam | undefined = team
    ? createAgentsTeam({
        team,
        repo: config.repo,
        store,
        registry,
        sessions,
        calls: (services as Partial<HubServices>).observability?.calls,
        events,
        logger,
        now,
        retention: config.retention,
        timeoutMs,
        presenceChanged: () => events.publish('presence-updated', { counts: counts() }),
      })
    : undefined;
  const branch = teamAgents ? teamAgents.branch : () => null;
  const presenceDeps = { registry, store, sessions, now, claimedBy, machine, branch };
  const agentOf = (agentSession: string): string | null => {
    if (registry.get(agentSession)) return agentSession;
    const linked = sessions.list(0, 0).find((s) => s.id === agentSession)?.agent_session;
    return linked && registry.get(linked) ? linked : null;
  };

  function publish(row: HookEventRow): void {
    const { detail: _detail, ...data } = row;
    events.publish<AgentEventData>('agent-event', data);
  }

  /** Keeps an event this hub took (stored, streamed, and in a team told to the other hubs). */
  function keep(row: Omit<HookEventRow, 'id' | 'machine' | 'branch'>, agent?: HookAgent): HookEventRow {
    const stored = { ...row, machine, branch: branch() };
    const kept = { ...stored, id: store.add(stored) };
    publish(kept);
    teamAgents?.shared(kept, agent);
    return kept;
  }

  function record(
    ev: NormalizedEvent,
    at: number,
    files: StoredFile[],
    extra: Partial<Omit<HookEventRow, 'id' | 'machine' | 'branch'>> = {},
    agent?: HookAgent,
  ): HookEventRow {
    return keep(
      {
        at,
        agent: ev.session,
        client: ev.client,
        event: ev.event,
        kind: ev.kind,
        phase: ev.phase,
        tool: ev.tool,
        ok: ev.ok,
        summary: ev.summary,
        files,
        detail: ev.detail,
        ...extra,
      },
      agent,
    );
  }

  // Edits reported by PostToolUse refresh the graph and docs for those files at once (the watcher
  // would get there too, later). Agents edit in bursts and many at once: edits are gathered for a
  // moment and refreshed in one pass (one graph reindex, one docs refresh), one pass at a time, then
  // each agent gets a refresh event for its own files.
  const pending = new Map<string, Set<string>>();
  let refreshTimer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  function scheduleRefresh(agent: string, relPaths: readonly string[]): void {
    if (relPaths.length === 0) return;
    const set = pending.get(agent) ?? new Set();
    for (const p of relPaths) set.add(p);
    pending.set(agent, set);
    refreshTimer ??= setTimeout(runRefresh, REFRESH_DELAY_MS);
  }
  function runRefresh(): void {
    refreshTimer = undefined;
    inFlight = inFlight.then(async () => {
      const batch = [...pending.entries()];
      pending.clear();
      if (batch.length > 0) await refreshBatch(batch);
    });
  }
  async function refreshBatch(batch: [string, Set<string>][]): Promise<void> {
    const s = services as Partial<HubServices>;
    // Only files whose real path is inside the repository's real path (a symlink pointing out is not).
    const inside = new Map<string, string>();
    for (const [, set] of batch)
      for (const p of set) {
        if (inside.has(p)) continue;
        const rel = paths.relative(`${paths.root}/${p}`);
        if (rel !== null) inside.set(p, rel);
      }
    const all = [...new Set(inside.values())];
    const detail: Record<string, unknown> = {};
    const done: string[] = [];
    if (all.length > 0) {
      try {
        if (s.graph && modules.isEnabled('graph')) {
          const r = await s.graph.reindex({ paths: all });
          detail.graph = {
            files_changed: r.filesChanged,
            files_deleted: r.filesDeleted,
            generation: r.generation,
          };
          done.push('graph');
        }
        if (s.docs && modules.isEnabled('docs')) {
          const r = await s.docs.refresh(all.map((p) => `${paths.root}/${p}`));
          detail.docs = { indexed: r.indexed, removed: r.removed };
          done.push('docs');
        }
      } catch (err) {
        logger.warn({ err, scope: 'hooks' }, 'refreshing the files agents edited failed');
        detail.error = 'the refresh failed; the watcher will pick the change up';
      }
    }
    if (done.length === 0 && detail.error === undefined) return;
    for (const [agent, set] of batch) {
      const rel = [...set].map((p) => inside.get(p)).filter((p): p is string => p !== undefined);
      if (rel.length === 0) continue;
      const shown = rel.slice(0, 3).join(', ') + (rel.length > 3 ? ` and ${rel.length - 3} more` : '');
      keep({
        at: now(),
        agent,
        client: registry.get(agent)?.client ?? ('unknown' as const),
        event: 'refresh',
        kind: 'refresh' as const,
        phase: null,
        tool: null,
        ok: detail.error === undefined,
        summary: `${done.join(' and ') || 'index'} refreshed for ${shown}`,
        files: rel.map((path) => ({ path, role: 'edit' as const })),
        detail,
      });
    }
  }

  function conflictsFor(ev: NormalizedEvent, files: StoredFile[]): ConflictHit[] {
    if (ev.phase !== 'pre' || ev.kind !== 'edit') return [];
    return findConflicts(
      files.filter((f) => f.role === 'edit').map((f) => f.path),
      ev.session,
      { registry, now, windowMs, claims, agentOf },
    );
  }

  // A claim goes on the claimant's timeline (the board announces it; hooks only see an MCP tool call).
  const unsubscribeClaims = events.subscribe((e) => {
    if (e.type !== 'task-updated') return;
    const d = e.data as {
      change?: string;
      task_id?: string | null;
      agent_session?: string | null;
      machine?: string;
    };
    // Another machine's claim: its hub put it on the claimant's timeline, and that event arrives here.
    if (d.machine !== undefined && d.machine !== machine) return;
    if (d.change === 'claimed' && d.task_id && d.agent_session)
      note(agentOf(d.agent_session) ?? d.agent_session, 'claim', `claimed ${d.task_id}`, { task: d.task_id });
    if (d.change === 'handed_off' && d.task_id && d.agent_session)
      note(agentOf(d.agent_session) ?? d.agent_session, 'claim', `took over ${d.task_id} (handed off)`, {
        task: d.task_id,
        handoff: true,
      });
  });

  const counts = (): LifecycleCounts =>
    countAgents(listAgents(presenceDeps, { includeEnded: false, counting: true }));

  function claimViews(graceMs: number): ClaimView[] {
    const board = (services as Partial<HubServices>).board;
    if (!board || !modules.isEnabled('tasks')) return [];
    const at = now();
    return board.inProgress().map((t) => {
      const s = t.agent_session;
      const facts = s ? claimantFacts(s, { registry, store }, sessions) : { hook: undefined, mcp: [] };
      const state = claimantState(s, facts, at, graceMs);
      // A claim made on another machine (its team record says so, or its claimant reports to another
      // hub) is that hub's to judge: this one cannot tell an agent gone from one it stopped hearing
      // about (that hub's events may be waiting in its outbox), so it never reclaims it.
      const other =
        foreign(t.machine) ??
        facts.hook?.machine ??
        facts.mcp.find((m) => m.machine !== null)?.machine ??
        null;
      if (other !== null && state.state !== 'alive')
        return {
          task: { id: t.id, title: t.title },
          agent_session: s,
          state: 'unknown' as const,
          last_seen_at: state.last_seen_at,
          reason: `claimed on ${other}: only that machine's hub reclaims it (${state.reason})`,
        };
      return { task: { id: t.id, title: t.title }, agent_session: s, ...state };
    });
  }

  /** Records an event on an agent's timeline that no hook reported (a claim, a reclaim). */
  function note(
    agent: string,
    kind: 'claim' | 'reservation',
    summary: string,
    detail: Record<string, unknown>,
  ): void {
    keep({
      at: now(),
      agent,
      client: registry.get(agent)?.client ?? ('unknown' as const),
      event: kind,
      kind,
      phase: null,
      tool: null,
      ok: true,
      summary,
      files: [],
      detail,
    });
  }

  let reclaiming: Promise<ReclaimResult> | undefined;
  async function reclaim(opts: {
    dryRun: boolean;
    task?: string;
    graceMinutes?: number;
  }): Promise<ReclaimResult> {
    const graceMs = (opts.graceMinutes ?? settings.get().claim_grace_minutes) * 60_000;
    const views = claimViews(graceMs).filter(
      (v) => opts.task === undefined || parseTaskId(v.task.id) === parseTaskId(opts.task),
    );
    const entries: ReclaimResult['entries'] = [];
    for (const v of views) {
      const dead = v.state === 'ended' || v.state === 'silent';
      let released = false;
      if (dead && !opts.dryRun && v.agent_session) {
        const board = (services as Partial<HubServices>).board;
        const task = await board?.release(
          v.task.id,
          v.agent_session,
          `reclaimed: ${v.agent_session} ${v.reason}`,
          { source: 'api' },
        );
        released = task != null;
        if (released) {
          logger.info(
            { scope: 'hooks', task: v.task.id, agent: v.agent_session },
            `reclaimed ${v.task.id}: ${v.reason}`,
          );
          note(agentOf(v.agent_session) ?? v.agent_session, 'claim', `${v.task.id} reclaimed: ${v.reason}`, {
            task: v.task.id,
            reclaimed: true,
            reason: v.reason,
          });
        }
      }
      entries.push({ ...v, reclaimable: dead, released });
    }
    return { dry_run: opts.dryRun, grace_minutes: graceMs / 60_000, entries };
  }
  // Any change of who is here (a session started or ended, an MCP session closed, an agent gone quiet)
  // makes the next sweep a new one.
  let presenceEpoch = 0;
  let lastSweep: { at: number; epoch: number; result: ReclaimResult } | undefined;
  const unsubscribePresence = events.subscribe((e) => {
    if (e.type === 'presence-updated') presenceEpoch++;
  });
  /** Releases every dead claim; one sweep at a time (the periodic one and claim-next's share it). */
  const sweepClaims = (): Promise<ReclaimResult> => {
    const at = now();
    if (
      lastSweep &&
      lastSweep.epoch === presenceEpoch &&
      at >= lastSweep.at &&
      at - lastSweep.at < SWEEP_REUSE_MS
    )
      return Promise.resolve(lastSweep.result);
    reclaiming ??= (async () => {
      const epoch = presenceEpoch;
      const result = await reclaim({ dryRun: false });
      lastSweep = { at, epoch, result };
      return result;
    })().finally(() => {
      reclaiming = undefined;
    });
    return reclaiming;
  };

  return {
    settings,
    store,
    registry,
    paths,
    ingest(body, clientHint) {
      const current = settings.get();
      const ev = normalizeHookPayload(body, clientHint, { redact, storePrompts: current.store_prompts });
      const at = now();
      const files: StoredFile[] = ev.files.map((f) => ({
        path: redact.text(paths.stored(f.path)),
        role: f.role,
      }));
      const wasLive = registry.get(ev.session) !== undefined;
      const agent = registry.seen(ev, at, files, branch());
      record(ev, at, files, {}, agent);
      let conflict: { mode: typeof current.conflicts; message: string } | null = null;
      if (current.conflicts !== 'off') {
        // Paths other agents reserved (server/coord/reservations.ts) count as their edits do, from memory.
        const found = conflictsFor(ev, files);
        const held = (services as Partial<HubServices>).reservations?.check(ev, files, found);
        const hits = held ? held.hits : found;
        if (hits.length > 0 || held) {
          const message = held ? held.message : describeConflicts(hits, at);
          // A shell command's writes are guessed from its text: warned about, never refused.
          const mode = held?.warnOnly ? 'warn' : current.conflicts;
          conflict = { mode, message };
          const data = {
            mode,
            tool: ev.tool,
            hits: hits.slice(0, MAX_RECORDED_HITS),
            ...(hits.length > MAX_RECORDED_HITS ? { more_hits: hits.length - MAX_RECORDED_HITS } : {}),
            ...(held ? { reservations: held.reservations } : {}),
          };
          const paths = [
            ...new Set([...hits.map((h) => h.path), ...(held?.reservations ?? []).map((r) => r.target)]),
          ];
          record(
            ev,
            at,
            paths.map((path) => ({ path, role: 'edit' as const })),
            {
              kind: 'conflict',
              phase: null,
              ok: mode !== 'block',
              summary:
                `${mode === 'block' ? 'refused' : 'warned'}: ${message.replace(/^cos hub: /, '')}`.slice(
                  0,
                  240,
                ),
              detail: data,
            },
          );
          events.publish('agent-conflict', { agent: ev.session, client: ev.client, at, ...data });
        }
      }
      if (ev.phase === 'post') {
        const inside = files.filter((f) => f.role === 'edit' && !f.path.startsWith('/')).map((f) => f.path);
        scheduleRefresh(ev.session, inside);
      }
      if (!wasLive || ev.kind === 'session_end' || registry.noteLifecycle(agent))
        events.publish('presence-updated', { counts: counts() });
      // Its transcript is read on after this answer is sent (server/costs/): only noted here.
      (services as Partial<HubServices>).costs?.observe(ev);
      // The agent's waiting messages ride on this answer when it can carry them (server/messages/).
      const answer = answerFor(ev, conflict);
      const finish = (a: HookAnswer) => (services as Partial<HubServices>).messages?.intoAnswer(ev, a) ?? a;
      // SessionStart also offers the repository map (server/graph/queries/overview.ts), waiting a
      // bounded moment for one not computed yet; any failure answers without it.
      if (ev.kind === 'session_start' && current.map && modules.isEnabled('graph'))
        return sessionMap(db).then(
          (map) => finish(map === null ? answer : (withContext(ev, answer, map) ?? answer)),
          () => finish(answer),
        );
      return finish(answer);
    },
    agents(opts = {}) {
      return listAgents(presenceDeps, { includeEnded: opts.includeEnded ?? false });
    },
    counts,
    note,
    claims: () => claimViews(settings.get().claim_grace_minutes * 60_000),
    reclaim,
    sweepClaims,
    isAlive(agentSession) {
      return listAgents(presenceDeps, { includeEnded: false, counting: true }).some(
        (a) =>
          a.id === agentSession || a.agent_session === agentSession || a.mcp_sessions.includes(agentSession),
      );
    },
    idle: async () => {
      if (refreshTimer) {
        clearTimeout(refreshTimer);
        runRefresh();
      }
      await inFlight;
      store.flush();
    },
    async start() {
      await teamAgents?.start();
      sweeper = setInterval(() => {
        if (registry.sweep()) events.publish('presence-updated', { counts: counts() });
      }, SWEEP_MS);
      sweeper.unref();
      retention = setInterval(() => {
        try {
          store.applyRetention(now(), config.retention);
        } catch (err) {
          logger.warn({ err, scope: 'hooks' }, 'hook event retention failed');
        }
      }, 5 * 60_000);
      retention.unref();
      claimSweeper = setInterval(() => {
        sweepClaims().catch((err: unknown) =>
          logger.warn({ err, scope: 'hooks' }, 'reclaiming dead claims failed'),
        );
      }, CLAIM_SWEEP_MS);
      claimSweeper.unref();
    },
    async close() {
      clearInterval(sweeper);
      clearInterval(retention);
      clearInterval(claimSweeper);
      unsubscribeClaims();
      unsubscribePresence();
      teamAgents?.close();
      await reclaiming?.catch(() => {});
      if (refreshTimer) clearTimeout(refreshTimer);
      await inFlight.catch(() => {});
      store.close();
    },
  };
}
