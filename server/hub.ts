// The hub's runtime: configuration, database, logger, event bus, module switches, the domain services and
// the tool registry. buildApp() serves it; main.ts starts and stops it. Nothing here listens on a port.

import { basename, join } from 'node:path';
import type { Logger } from 'pino';
import { type Envelope, TOKEN_BUDGET_CHARS } from '../shared/envelope/index.ts';
import { createAgentsService } from './agents/service.ts';
import type { Config } from './config.ts';
import { createReservationsService } from './coord/reservations.ts';
import { createCostsService } from './costs/service.ts';
import { releaseDbCaches } from './db/caches.ts';
import { DatabaseFileGuard } from './db/file-guard.ts';
import { DB_FILE_NAME, type Db, openDatabase } from './db/open.ts';
import { EventBus } from './events/bus.ts';
import { makeDirSync } from './fs/make-dir.ts';
import { createGitService } from './git/service.ts';
import type { ExtractHelpers } from './graph/helpers.ts';
import type { PassQueue } from './graph/pass-queue.ts';
import { HubStatus } from './hub-status.ts';
import { LogFile } from './log-file.ts';
import { createLogger, LOG_FILE_NAME } from './logger.ts';
import { ModuleState } from './modules.ts';
import { CallRecorder } from './observability/calls.ts';
import { LogSink } from './observability/log-sink.ts';
import { SessionTracker } from './observability/sessions.ts';
import { createServices, type ServiceLifecycle } from './services.ts';
import type { TeamDatabase } from './team/database.ts';
import { resolveTeamKey } from './team/identity.ts';
import { Team } from './team/team.ts';
import type { ProjectTelemetry, Telemetry } from './telemetry/telemetry.ts';
import { catalog } from './tools/catalog.ts';
import type { CallerInfo, HubServices, ToolContext } from './tools/context.ts';
import type { AnyTool } from './tools/define.ts';
import { ToolRegistry } from './tools/registry.ts';
import { answerTool, runTool, type ToolAnswer } from './tools/run.ts';

export { DB_FILE_NAME };

export interface Hub {
  config: Config;
  db: Db;
  dbPath: string;
  logger: Logger;
  /** The hub's own condition for cos_health: the log writer, hub.db, MCP sessions. */
  status: HubStatus;
  events: EventBus;
  modules: ModuleState;
  registry: ToolRegistry;
  services: HubServices;
  /** Every tool call, batched into tool_calls; counters for /metrics. */
  calls: CallRecorder;
  /** MCP sessions and their lifecycle (presence). */
  sessions: SessionTracker;
  /** This project's part of the OpenTelemetry export, when the process has one (OTEL_* variables). */
  telemetry: ProjectTelemetry | undefined;
  /**
   * Serves one call for an adapter (MCP or REST): runs the tool, puts the envelope on the wire the way
   * that face does (`serialise`), and records the call with the size actually sent.
   */
  call(tool: AnyTool, input: unknown, options: CallOptions): Promise<ToolAnswer>;
  /**
   * call() for the MCP face, whose wire form is the envelope's own JSON: synchronous when the tool's
   * handler is (most are), so a hot call pays for no promise.
   */
  answer(tool: AnyTool, input: unknown, options: AnswerOptions): ToolAnswer | Promise<ToolAnswer>;
  /** A context for one call; `signal` and `progress` come from the adapter serving it. */
  context(caller: CallerInfo, extra?: ContextExtras): ToolContext;
  /**
   * When a tool of this hub was last called, by an agent or a person (ms since the epoch; the hub's own
   * page polling does not count); its creation until then.
   */
  lastUsedAt(): number;
  /**
   * Lets go of what the hub can rebuild on its next call (projects/idle.ts): the graph's indexer thread,
   * the writer threads, the caches kept beside the database. Watchers keep running, so freshness stays
   * true. Resolves with what was let go (empty when there was nothing to).
   */
  release(): Promise<string[]>;
  /** Starts background work (indexers, watchers). The hub answers before it finishes. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface ContextExtras {
  /** The call's signal, or a function that makes it when a tool first asks (AbortSignals cost µs). */
  signal?: AbortSignal | (() => AbortSignal) | undefined;
  progress?: ToolContext['progress'] | undefined;
  /** The budget the answer is trimmed to (ToolContext.budget); call() and answer() set it from applyBudget. */
  budget?: number | undefined;
}

export interface AnswerOptions extends ContextExtras {
  caller: CallerInfo;
  /** true on MCP (the 32 KB agent budget), false for the browser. */
  applyBudget: boolean;
}

export interface CallOptions extends AnswerOptions {
  /**
   * The face's wire form of the envelope; it is what the caller sends and what is recorded. Without it,
   * the envelope's own JSON (MCP), which a small answer gets from the serialisation that measured it.
   */
  serialise?: (envelope: Envelope) => string;
}

export interface CreateHubOptions {
  /** The tools to serve; defaults to the product's catalog. */
  tools?: readonly AnyTool[];
  logger?: Logger;
  /** Skip the domain services (tests of the registry and adapters). */
  withoutServices?: boolean;
  /** Write .mcp.log synchronously (tests read it right after a call). */
  logSync?: boolean;
  /** The clock of presence and retention (tests move it). */
  now?: () => number;
  /** One full index pass at a time across the projects of one process (see ProjectHubs). */
  passQueue?: PassQueue;
  /** The process's extraction helper threads, shared by the projects' indexers. */
  extractHelpers?: ExtractHelpers;
  /**
   * Start the writer threads (recorded calls, task files) with start(), so the hub's threads and
   * descriptors are there from the start (default). A hub serving several repositories opens the
   * registered ones with false: most of them are never written to, and each thread costs about 10 MB.
   */
  threadsAtStart?: boolean;
  /**
   * The team's PostgreSQL, opened (and migrated) by `cos serve` before any hub: with it the hub keeps
   * its team state there, shared with every hub of the same repository (server/team/).
   */
  teamDatabase?: TeamDatabase;
  /**
   * The process's OpenTelemetry export (startTelemetry, by `cos serve` when OTEL_* variables name a
   * collector): every project's tool calls, hook events, sessions, tasks and usage go to it.
   */
  telemetry?: Telemetry | undefined;
}

const NEVER_ABORTED = new AbortController().signal;
const NO_PROGRESS = () => {};

type HubParts = Pick<ToolContext, 'config' | 'db' | 'logger' | 'services' | 'modules' | 'events'>;

/**
 * One call's context. A class rather than an object literal: V8 makes a literal with a getter a
 * dictionary-mode object, slow to build on every call and slow for every tool to read.
 */
class CallContext implements ToolContext {
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly services: HubServices;
  readonly modules: ModuleState;
  readonly events: EventBus;
  private made: AbortSignal | undefined;

  constructor(
    parts: HubParts,
    readonly caller: CallerInfo,
    private readonly signalSource: AbortSignal | (() => AbortSignal),
    readonly progress: ToolContext['progress'],
    readonly budget: number | undefined,
  ) {
    this.config = parts.config;
    this.db = parts.db;
    this.logger = parts.logger;
    this.services = parts.services;
    this.modules = parts.modules;
    this.events = parts.events;
  }

  get signal(): AbortSignal {
    const source = this.signalSource;
    if (typeof source !== 'function') return source;
    this.made ??= source();
    return this.made;
  }
}

export function createHub(config: Config, options: CreateHubOptions = {}): Hub {
  makeDirSync(config.stateDir);
  const logSink = new LogSink({ repo: config.repo, stateDir: config.stateDir });
  const logFile = options.logger
    ? undefined
    : new LogFile(join(config.stateDir, LOG_FILE_NAME), options.logSync ?? false);
  const logger =
    options.logger ??
    createLogger({
      stateDir: config.stateDir,
      level: config.logLevel,
      warnSink: logSink,
      ...(logFile ? { destination: logFile } : {}),
    });
  const dbPath = join(config.stateDir, DB_FILE_NAME);
  // A damaged file is refused here (quick_check), before anything is served from it or migrated.
  const db = openDatabase(dbPath, { busyTimeoutMs: config.dbBusyTimeoutMs, check: true });
  const dbFile = new DatabaseFileGuard(dbPath);
  const events = new EventBus();
  logSink.attach(db, events);
  const now = options.now ?? Date.now;
  const calls = new CallRecorder(
    db,
    dbPath,
    events,
    logger,
    config.retention,
    now,
    config.dbBusyTimeoutMs,
    dbFile.opened,
  );
  const sessions = new SessionTracker(db, events, now);
  const modules = ModuleState.forStateDir(config.stateDir);
  if (modules.loadError) logger.warn({ scope: 'modules' }, modules.loadError);
  calls.persist = () => modules.isEnabled('observability');
  const registry = new ToolRegistry(options.tools ?? catalog);
  // The team this repository's hubs share, when there is a team database.
  options.teamDatabase?.attachLogger(logger);
  const team = options.teamDatabase
    ? new Team(
        options.teamDatabase,
        resolveTeamKey(config.repo, config.teamProject),
        config.machine,
        config.repo,
        logger.child({ module: 'team' }),
      )
    : undefined;
  const { services, lifecycle }: { services: HubServices; lifecycle: ServiceLifecycle[] } =
    options.withoutServices
      ? { services: {} as HubServices, lifecycle: [] }
      : createServices({
          config,
          db,
          dbPath,
          dbIdentity: dbFile.opened,
          logger,
          events,
          modules,
          passQueue: options.passQueue,
          extractHelpers: options.extractHelpers,
          threadsAtStart: options.threadsAtStart,
          team,
        });
  // Part of every hub: the adapters feed them, the observability tools read them.
  services.observability = { calls, sessions };
  const status = new HubStatus();
  status.database = dbFile;
  if (logFile) status.log = logFile.state;
  services.status = status;
  status.telemetry = options.telemetry;
  const telemetry = options.telemetry?.project(basename(config.repo), config.machine, events);
  if (team) {
    services.team = team;
    status.team = team;
  }
  // Every hub reads its repository's git (the graph and board tools both ask it); it holds no handle.
  services.git ??= createGitService(config.repo);
  // Agents as their hooks report them; presence counts of hook and MCP sessions come from it alone.
  const agents = createAgentsService({ config, db, events, logger, modules, sessions, services, now });
  services.agents = agents;
  sessions.countsSource = () => agents.counts();
  // File reservations: granted in the store, enforced in the hooks above from memory.
  const reservations = createReservationsService({ config, db, events, logger, services, now });
  services.reservations = reservations;
  // Tokens and cost, read from the transcripts the agents' hooks name (after each hook is answered).
  const costs = createCostsService({ config, db, events, logger, services, now });
  services.costs = costs;

  /** A call's start and end (a long one keeps the project in use throughout), not the page's polls. */
  let lastUsedAt = now();

  /** Records a served call (and the session's last tool) once its answer is on its way. */
  function finish(
    tool: AnyTool,
    input: unknown,
    caller: CallerInfo,
    startedAt: number,
    t0: number,
    answer: ToolAnswer,
  ): ToolAnswer {
    const { envelope, text } = answer;
    const durationMs = performance.now() - t0;
    if (caller.background !== true) lastUsedAt = now();
    if (config.recordCalls && caller.background !== true)
      calls.record(
        tool,
        caller,
        input,
        envelope,
        startedAt,
        durationMs,
        answer.bytes ?? Buffer.byteLength(text),
      );
    if (telemetry && caller.background !== true) traced(tool, input, caller, startedAt, durationMs, answer);
    if (caller.mcpSessionId) {
      const agent = (input as { agent_session?: unknown } | null)?.agent_session;
      sessions.called(
        caller.mcpSessionId,
        tool.name,
        typeof agent === 'string' ? agent : null,
        caller.clientName,
        caller.clientVersion,
      );
    }
    return answer;
  }

  /** The call's span (telemetry never fails a call: what it cannot record it logs). */
  function traced(
    tool: AnyTool,
    input: unknown,
    caller: CallerInfo,
    startedAt: number,
    durationMs: number,
    { envelope, text, bytes }: ToolAnswer,
  ): void {
    const agent = (input as { agent_session?: unknown } | null)?.agent_session;
    const meta = envelope.ok ? (envelope.data as { meta?: { truncated?: unknown } } | null)?.meta : undefined;
    telemetry?.toolCall({
      tool: tool.name,
      module: tool.module,
      transport: caller.transport,
      startedAt,
      durationMs,
      ok: envelope.ok,
      errorCategory: envelope.ok ? null : envelope.error.category,
      agentSession: typeof agent === 'string' && agent.length <= 200 ? agent : null,
      mcpSession: caller.mcpSessionId ?? null,
      clientName: caller.clientName ?? null,
      responseBytes: bytes ?? Buffer.byteLength(text),
      truncated: meta?.truncated === true,
    });
  }

  const parts: HubParts = { config, db, logger, services, modules, events };
  let closed = false;
  return {
    config,
    db,
    dbPath,
    logger,
    status,
    events,
    modules,
    registry,
    services,
    calls,
    sessions,
    telemetry,
    call(tool, input, options) {
      const { serialise } = options;
      if (!serialise) return Promise.resolve(this.answer(tool, input, options));
      const { caller, applyBudget, signal, progress } = options;
      if (caller.background !== true) lastUsedAt = now();
      const startedAt = Date.now();
      const t0 = performance.now();
      const budget = applyBudget ? TOKEN_BUDGET_CHARS : undefined;
      const run = { applyBudget, ctx: this.context(caller, { signal, progress, budget }) };
      return runTool(tool, input, run).then((envelope) =>
        finish(tool, input, caller, startedAt, t0, { envelope, text: serialise(envelope) }),
      );
    },
    answer(tool, input, { caller, applyBudget, signal, progress }) {
      if (caller.background !== true) lastUsedAt = now();
      const startedAt = Date.now();
      const t0 = performance.now();
      const budget = applyBudget ? TOKEN_BUDGET_CHARS : undefined;
      const answer = answerTool(tool, input, {
        applyBudget,
        ctx: this.context(caller, { signal, progress, budget }),
      });
      return answer instanceof Promise
        ? answer.then((a) => finish(tool, input, caller, startedAt, t0, a))
        : finish(tool, input, caller, startedAt, t0, answer);
    },
    context(caller, extra = {}) {
      return new CallContext(
        parts,
        caller,
        extra.signal ?? NEVER_ABORTED,
        extra.progress ?? NO_PROGRESS,
        extra.budget,
      );
    },
    lastUsedAt: () => lastUsedAt,
    async release() {
      if (closed) return [];
      const released: string[] = [];
      for (const service of lifecycle) {
        try {
          if (await service.release?.()) released.push(service.name);
        } catch (err) {
          logger.warn({ err, scope: service.name }, `${service.name} could not let go of its threads`);
        }
      }
      if (calls.release()) released.push('call writer');
      releaseDbCaches(db);
      return released;
    },
    async start() {
      // First: the services below subscribe to the feed and read the team's state as they start.
      await team?.start();
      sessions.endOrphans();
      if (config.recordCalls && options.threadsAtStart !== false) calls.start();
      await agents.start();
      await reservations.start();
      // Concurrently: the hub answers while every service indexes, and one failing start stops no other.
      await Promise.all(
        lifecycle.map(async (service) => {
          try {
            await service.start?.();
          } catch (err) {
            logger.error({ err, scope: service.name }, `${service.name} failed to start`);
          }
        }),
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      await reservations.close();
      await costs.close();
      // First: an edit's refresh still running needs the graph and docs services it calls.
      await agents
        .close()
        .catch((err: unknown) => logger.error({ err, scope: 'hooks' }, 'hooks failed to close'));
      for (const service of [...lifecycle].reverse()) {
        try {
          await service.close?.();
        } catch (err) {
          logger.error({ err, scope: service.name }, `${service.name} failed to close`);
        }
      }
      await calls.close();
      // After the services: what they queued for the team (hook events, tool calls) is written first.
      await team
        ?.close()
        .catch((err: unknown) => logger.error({ err, scope: 'team' }, 'team failed to close'));
      sessions.close();
      telemetry?.close();
      logSink.detach();
      db.close();
      const removed = dbFile.close();
      if (removed.length > 0)
        logger.warn(
          { scope: 'database', removed },
          `${DB_FILE_NAME} was deleted or replaced while the hub ran: removed its old ${removed.join(' and ')}, so the next start does not apply them to the file now in its place`,
        );
      logger.flush();
      logFile?.end();
    },
  };
}
