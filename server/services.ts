// Builds the domain services (board, graph, memory, docs, …) that tools reach through ctx.services.
// Each service module adds its own field to HubServices by declaration merging.
import type { Logger } from 'pino';
import { createBoardService } from './board/service.ts';
import { taskKeys } from './board/task-keys.ts';
import type { Config } from './config.ts';
import type { Db, FileIdentity } from './db/open.ts';
import { createDocsService } from './docs/service.ts';
import type { EventBus } from './events/bus.ts';
import { createGitService } from './git/service.ts';
import type { ExtractHelpers } from './graph/helpers.ts';
import type { PassQueue } from './graph/pass-queue.ts';
import { createGraphService } from './graph/service.ts';
import type { HubServices } from './hub-services.ts';
import { createMemoryService } from './memory/service.ts';
import { createMessagesService } from './messages/service.ts';
import type { ModuleState } from './modules.ts';
import { createSuperviseService } from './supervise/service.ts';
import type { Team } from './team/team.ts';

export interface ServiceDeps {
  config: Config;
  db: Db;
  dbPath: string;
  /** Which file dbPath was when the hub opened it: threads opening it later refuse any other. */
  dbIdentity?: FileIdentity | undefined;
  logger: Logger;
  events: EventBus;
  modules: ModuleState;
  /** Shared by the projects of one hub process: their full index passes take turns. */
  passQueue?: PassQueue | undefined;
  /** Shared by the projects of one hub process: one set of extraction helper threads (and grammars). */
  extractHelpers?: ExtractHelpers | undefined;
  /** Start writer threads with the services (default true); false: with their first write. */
  threadsAtStart?: boolean | undefined;
  /** The team on PostgreSQL (COS_DATABASE_URL); undefined when the hub runs alone. */
  team?: Team | undefined;
}

/** Background work a service starts with the hub (indexing, watching) and stops with it. */
export interface ServiceLifecycle {
  name: string;
  start?(): unknown;
  /**
   * Lets go of what the service can rebuild when next used (threads and their memory) while its project
   * is idle; watchers keep running. True when something was let go.
   */
  release?(): boolean | Promise<boolean>;
  close?(): void | Promise<void>;
}

export function createServices(deps: ServiceDeps): { services: HubServices; lifecycle: ServiceLifecycle[] } {
  const { config, db, logger, events } = deps;
  // With a team, memory is the team's (PostgreSQL); alone, hub.db's as ever.
  const memory = createMemoryService({ db, team: deps.team, events, searchBudgetMs: config.searchBudgetMs });
  // The board's task files are the board's: it indexes them itself and rewrites them constantly.
  const docs = createDocsService({
    db,
    repo: config.repo,
    stateDir: config.stateDir,
    searchBudgetMs: config.searchBudgetMs,
    excludedDirs: [config.tasksDir],
    logger,
    events,
  });
  const supervise = createSuperviseService({ agentDir: config.agentDir, stateDir: config.stateDir, logger });
  // The board's commit gate counts a task's commits through the repository's one git reader, matching
  // the ids commits write to the board's keys the way the board tools do (task-keys.ts).
  const git = createGitService(config.repo);
  const board = createBoardService({
    config,
    db,
    events,
    logger,
    threadsAtStart: deps.threadsAtStart,
    team: deps.team,
    linkedCommits: async (key) => (await git.taskCommits(key, taskKeys(db).resolve)).commits.length,
  });
  const services = { board, memory, docs, supervise, git } as HubServices;
  // Messages between agents and people; the agents' hook answers carry them (services.agents is read
  // when a message is sent, so it may be set after this).
  services.messages = createMessagesService({ ...deps, services });
  const lifecycle: ServiceLifecycle[] = [
    {
      name: 'board',
      // In a team, the team's records are read once the files are indexed (board/team-board.ts).
      start: deps.team
        ? async () => {
            board.start();
            await board.joinTeam();
          }
        : () => board.start(),
      release: () => board.releaseThreads(),
      close: () => board.close(),
    },
    { name: 'docs', start: () => docs.start(), close: () => docs.close() },
    { name: 'messages', start: () => services.messages.start(), close: () => services.messages.close() },
  ];
  // The graph indexes in a worker thread: start() only spawns it, so the hub answers at once and the
  // graph tools report what is indexed so far. An in-memory database (tests) has no file to share.
  if (deps.dbPath !== ':memory:') {
    const { extractHelpers, threadsAtStart: _, team: _team, ...graphDeps } = deps;
    const graph = createGraphService({ ...graphDeps, helpers: extractHelpers });
    services.graph = graph;
    let unsubscribe: (() => void) | undefined;
    lifecycle.push({
      name: 'graph',
      start: () => {
        if (deps.modules.isEnabled('graph')) graph.start();
        // Enabled later from the hub: index from then on, without a restart.
        unsubscribe = events.subscribe((e) => {
          const change = e.data as { id?: string; enabled?: boolean };
          if (e.type === 'module-changed' && change.id === 'graph' && change.enabled) graph.start();
        });
      },
      release: () => graph.release(),
      close: () => {
        unsubscribe?.();
        return graph.close();
      },
    });
  }
  return { services, lifecycle };
}
