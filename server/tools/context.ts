// What a tool handler receives. Domain services are added by declaration merging from their own files:
//   declare module '../tools/context.ts' { interface HubServices { board: BoardService } }
// so no central file has to know every module.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import type { ModuleState } from '../modules.ts';

// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in each module
export interface HubServices {}

export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallerInfo {
  transport: 'mcp' | 'rest' | 'internal';
  /** MCP session id (Mcp-Session-Id), when the call came over MCP. */
  mcpSessionId?: string;
  clientName?: string;
  clientVersion?: string;
  /**
   * A read of the hub's own web page (a REST GET sent with `X-Cos-Background: 1`; the page sends it on
   * every read): the page drawing itself is nobody's work, so it is neither recorded as a tool call nor
   * counted as use of the project.
   */
  background?: boolean;
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
