// What a tool handler receives. The domain services (HubServices) and who is calling (CallerInfo) are
// declared below the tools layer, where the services and observability read them too.
import type { Logger } from 'pino';
import type { CallerInfo } from '../caller.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import type { HubServices } from '../hub-services.ts';
import type { ModuleState } from '../modules.ts';

export type { CallerInfo, HubServices };

export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolContext {
  config: Config;
  /** The main thread's connection. Never hand it to a worker thread. */
  db: Db;
  logger: Logger;
  services: HubServices;
  /** Which modules are enabled; runTool's gate reads it, kernel tools change it. */
  modules: ModuleState;
  /** Publish board, index and module events for the live stream. */
  events: EventBus;
  caller: CallerInfo;
  /** Aborted when the client cancels or disconnects. */
  signal: AbortSignal;
  /** Reports progress of a long tool (MCP progress notifications when the client asked for them). */
  progress: (report: ProgressReport) => void;
  /**
   * The size, in budget characters, the answer's envelope will be trimmed to (the agent budget on MCP),
   * or undefined when no budget applies (REST serves a browser). A tool that can page its answer itself
   * (the graph export) reads it to answer a page that fits instead of a body the trimmer must cut.
   */
  budget?: number | undefined;
}
