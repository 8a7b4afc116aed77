// The memory layer's tools, in the order tools/list shows them.
import type { AnyTool } from '../define.ts';
import { detailsTool } from './details.ts';
import { forgetTool } from './forget.ts';
import { forgetLogTool } from './forget-log.ts';
import { observationRecordTool } from './observation-record.ts';
import { observationUpdateTool } from './observation-update.ts';
import { memorySearchTool } from './search.ts';
import { timelineTool } from './timeline.ts';

export const memoryTools: AnyTool[] = [
  observationRecordTool,
  memorySearchTool,
  timelineTool,
  detailsTool,
  observationUpdateTool,
  forgetTool,
  forgetLogTool,
];
