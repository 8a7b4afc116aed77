// The supervise module's tools (layer audit), in the order tools/list shows them.
import type { AnyTool } from '../define.ts';
import { bundleTool } from './bundle.ts';
import { recordOutputTool } from './record-output.ts';
import { roleOutputsTool } from './role-outputs.ts';
import { rolesTool } from './roles.ts';

export const superviseTools: AnyTool[] = [recordOutputTool, bundleTool, rolesTool, roleOutputsTool];
