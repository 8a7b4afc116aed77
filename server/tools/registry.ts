// The set of tools a hub serves. Built once per hub from the catalog (or a test's own list).

import type { ModuleState } from '../modules.ts';
import type { AnyTool } from './define.ts';
import { precompile } from './run.ts';

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();

  constructor(tools: readonly AnyTool[]) {
    for (const tool of tools) {
      if (!/^cos_[a-z0-9_]+$/.test(tool.name))
        throw new Error(`tool name ${tool.name} must match cos_[a-z0-9_]+`);
      if (this.byName.has(tool.name)) throw new Error(`tool ${tool.name} is defined twice`);
      this.byName.set(tool.name, tool);
    }
  }

  /**
   * Compiles every tool's input checker, one tool per turn of the event loop, so the first call of
   * each tool is not the slow one. A running hub does this once it listens (hub.start()), not while it
   * starts: compiling all of them costs more than the rest of start-up, and a CLI command needs none.
   */
  async precompile(): Promise<void> {
    for (const tool of this.byName.values()) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      precompile([tool]);
    }
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  all(): AnyTool[] {
    return [...this.byName.values()];
  }

  /** A tool an agent may call over MCP (REST-only routes are not). */
  forMcp(name: string): AnyTool | undefined {
    const tool = this.byName.get(name);
    return tool?.mcp === false ? undefined : tool;
  }

  /** The tools an agent sees in tools/list: MCP tools of enabled modules. */
  enabled(modules: ModuleState): AnyTool[] {
    return this.all().filter((t) => t.mcp !== false && modules.isEnabled(t.module));
  }
}
