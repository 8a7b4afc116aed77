// The set of tools a hub serves. Built once per hub from the catalog (or a test's own list).

import type { ModuleState } from '../modules.ts';
import type { AnyTool } from './define.ts';

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
