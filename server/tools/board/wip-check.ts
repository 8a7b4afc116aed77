import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { boardOf, StatusSchema, WipColumnSchema } from './schemas.ts';

export const taskWipCheckTool = defineTool({
  name: 'cos_task_wip_check',
  title: 'WIP check',
  description: 'WIP-capped columns with count and cap, those over it, and the recent recorded bypasses.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    columns: Type.Array(WipColumnSchema),
    violations: Type.Array(Type.Object({ status: StatusSchema, count: Type.Integer(), cap: Type.Integer() })),
    recent_bypasses: Type.Array(
      Type.Object({
        task_id: Type.String(),
        at: Type.String(),
        status: StatusSchema,
        cap: Type.Integer(),
        count_before: Type.Integer(),
        reason: Type.String(),
        agent_session: Type.Union([Type.String(), Type.Null()]),
        source: Type.String(),
      }),
    ),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/wip', operationId: 'boardWipCheck' },
  handler: (ctx) => boardOf(ctx).wipCheck(),
});
