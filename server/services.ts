// Builds the domain services (board, graph, memory, docs, …) that tools reach through ctx.services.
// Each service module adds its own field to HubServices by declaration merging.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './db/open.ts';
import type { EventBus } from './events/bus.ts';
import { createGraphService } from './graph/service.ts';
import type { ModuleState } from './modules.ts';
import type { HubServices } from './tools/context.ts';

export interface ServiceDeps {
  config: Config;
  db: Db;
  dbPath: string;
  logger: Logger;
  events: EventBus;
  modules: ModuleState;
}

export interface ServiceLifecycle {
  start?(): void | Promise<void>;
  close?(): void | Promise<void>;
}

export function createServices(deps: ServiceDeps): { services: HubServices; lifecycle: ServiceLifecycle[] } {
  const services = {} as HubServices;
  const lifecycle: ServiceLifecycle[] = [];
  // The graph indexes in a worker thread: start() only spawns it, so the hub answers at once and the
  // graph tools report what is indexed so far. An in-memory database (tests) has no file to share.
  if (deps.dbPath !== ':memory:') {
    const graph = createGraphService(deps);
    services.graph = graph;
    lifecycle.push({
      start: () => {
        if (deps.modules.isEnabled('graph')) graph.start();
      },
      close: () => graph.close(),
    });
  }
  return { services, lifecycle };
}
