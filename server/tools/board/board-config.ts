import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { boardOf, StatusSchema } from './schemas.ts';

export const taskBoardConfigTool = defineTool({
  name: 'cos_task_board_config',
  title: 'Board configuration',
  description:
    "The board's columns, WIP caps, allowed transitions and swimlanes, and where the caps come from.",
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    columns: Type.Array(
      Type.Object({
        status: StatusSchema,
        cap: Type.Union([Type.Integer(), Type.Null()]),
        transitions: Type.Array(StatusSchema),
      }),
    ),
    swimlanes: Type.Array(Type.String()),
    wip_caps: Type.Record(Type.String(), Type.Integer()),
    config_file: Type.String(),
    config_error: Type.Union([Type.String(), Type.Null()]),
    tasks_dir: Type.String(),
    priorities: Type.Array(Type.String()),
    ready_label: Type.String(),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/config', operationId: 'boardConfig' },
  handler: (ctx) => boardOf(ctx).config(),
});
