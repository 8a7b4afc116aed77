// The hub's runtime: configuration, database, logger, event bus, module switches, the domain services and
// the tool registry. buildApp() serves it; main.ts starts and stops it. Nothing here listens on a port.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { type Db, openDatabase } from './db/open.ts';
import { EventBus } from './events/bus.ts';
import { createLogger } from './logger.ts';
import { ModuleState } from './modules.ts';
import { createServices, type ServiceLifecycle } from './services.ts';
import { catalog } from './tools/catalog.ts';
import type { CallerInfo, HubServices, ToolContext } from './tools/context.ts';
import type { AnyTool } from './tools/define.ts';
import { ToolRegistry } from './tools/registry.ts';

export const DB_FILE_NAME = 'hub.db';

export interface Hub {
  config: Config;
  db: Db;
  dbPath: string;
  logger: Logger;
  events: EventBus;
  modules: ModuleState;
  registry: ToolRegistry;
  services: HubServices;
  /** A context for one call; `signal` and `progress` come from the adapter serving it. */
  context(caller: CallerInfo, extra?: Partial<Pick<ToolContext, 'signal' | 'progress'>>): ToolContext;
  /** Starts background work (indexers, watchers). The hub answers before it finishes. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface CreateHubOptions {
  /** The tools to serve; defaults to the product's catalog. */
  tools?: readonly AnyTool[];
  logger?: Logger;
  /** Skip the domain services (tests of the registry and adapters). */
  withoutServices?: boolean;
}

const NEVER_ABORTED = new AbortController().signal;

export function createHub(config: Config, options: CreateHubOptions = {}): Hub {
  mkdirSync(config.stateDir, { recursive: true });
  const logger = options.logger ?? createLogger({ stateDir: config.stateDir, level: config.logLevel });
  const dbPath = join(config.stateDir, DB_FILE_NAME);
  const db = openDatabase(dbPath);
  const events = new EventBus();
  const modules = ModuleState.forStateDir(config.stateDir);
  if (modules.loadError) logger.warn({ scope: 'modules' }, modules.loadError);
  const registry = new ToolRegistry(options.tools ?? catalog);
  const { services, lifecycle }: { services: HubServices; lifecycle: ServiceLifecycle[] } =
    options.withoutServices
      ? { services: {} as HubServices, lifecycle: [] }
      : createServices({ config, db, dbPath, logger, events, modules });

  let closed = false;
  return {
    config,
    db,
    dbPath,
    logger,
    events,
    modules,
    registry,
    services,
    context(caller, extra = {}) {
      return {
        config,
        db,
        logger,
        services,
        modules,
        events,
        caller,
        signal: extra.signal ?? NEVER_ABORTED,
        progress: extra.progress ?? (() => {}),
      };
    },
    async start() {
      for (const service of lifecycle) await service.start?.();
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const service of [...lifecycle].reverse()) {
        try {
          await service.close?.();
        } catch (err) {
          logger.error({ err }, 'a service failed to close');
        }
      }
      db.close();
      logger.flush();
    },
  };
}
