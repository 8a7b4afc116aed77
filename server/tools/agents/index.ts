import type { AnyTool } from '../define.ts';
import { agentActivityTool } from './activity.ts';
import { connectPlanTool } from './connect-plan.ts';
import { hookSettingsSetTool, hookSettingsTool } from './settings.ts';

export const agentTools: AnyTool[] = [
  agentActivityTool,
  hookSettingsTool,
  hookSettingsSetTool,
  connectPlanTool,
];
