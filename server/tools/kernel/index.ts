import type { AnyTool } from '../define.ts';
import { healthTool } from './health.ts';
import { moduleListTool, moduleSetTool } from './modules.ts';
import { mcpProfilesTool } from './profiles.ts';
import { projectListTool } from './projects.ts';

export const kernelTools: AnyTool[] = [
  healthTool,
  moduleListTool,
  moduleSetTool,
  mcpProfilesTool,
  projectListTool,
];
