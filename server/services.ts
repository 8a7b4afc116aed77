// Builds the domain services (board, graph, memory, docs, …) that tools reach through ctx.services.
// Each service module adds its own field to HubServices by declaration merging.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './db/open.ts';
import type { EventBus } from './events/bus.ts';
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

export function createServices(_deps: ServiceDeps): { services: HubServices; lifecycle: ServiceLifecycle[] } {
  const services = {} as HubServices;
  const lifecycle: ServiceLifecycle[] = [];
  return { services, lifecycle };
}
