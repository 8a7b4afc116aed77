import type { AnyTool } from '../define.ts';
import { hubSummaryTool } from './hub-summary.ts';
import { logQueryTool } from './log-query.ts';
import { metricsTool } from './metrics.ts';
import { presenceNowTool, presenceQueryTool, sessionsActiveTool } from './presence.ts';
import { streamHistoryTool } from './stream-history.ts';
import { timelineTool } from './timeline.ts';

export const observabilityTools: AnyTool[] = [
  metricsTool,
  logQueryTool,
  presenceQueryTool,
  sessionsActiveTool,
  presenceNowTool,
  timelineTool,
  streamHistoryTool,
  hubSummaryTool,
];
