// The board's tools, in the order tools/list shows them.
import type { AnyTool } from '../define.ts';
import { taskBoardTool } from './board.ts';
import { taskBoardConfigTool } from './board-config.ts';
import { taskClaimNextTool } from './claim-next.ts';
import { taskCreateTool } from './create.ts';
import { taskDailyTool } from './daily.ts';
import { taskDependenciesTool } from './dependencies.ts';
import { taskDependentsTool } from './dependents.ts';
import { taskEditTool } from './edit.ts';
import { taskHandoffTool } from './handoff.ts';
import { taskHistoryTool } from './history.ts';
import { taskMoveTool } from './move.ts';
import { taskReadyTool } from './ready.ts';
import { taskReclaimTool } from './reclaim.ts';
import { taskRetroTool } from './retro.ts';
import { taskSearchTool } from './search.ts';
import { taskShowTool } from './show.ts';
import { taskChangesTool } from './task-changes.ts';
import { taskWipCheckTool } from './wip-check.ts';
import { workLogAppendTool } from './work-log-append.ts';

export const boardTools: AnyTool[] = [
  taskBoardTool,
  taskShowTool,
  taskCreateTool,
  taskMoveTool,
  taskEditTool,
  workLogAppendTool,
  taskClaimNextTool,
  taskHandoffTool,
  taskReclaimTool,
  taskReadyTool,
  taskSearchTool,
  taskHistoryTool,
  taskChangesTool,
  taskDailyTool,
  taskRetroTool,
  taskDependenciesTool,
  taskDependentsTool,
  taskWipCheckTool,
  taskBoardConfigTool,
];
