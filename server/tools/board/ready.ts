import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { boardOf, CardSchema, itemsWithinBudget, LimitSchema, OffsetSchema } from './schemas.ts';

export const taskReadyTool = defineTool({
  name: 'cos_task_ready',
  title: 'Ready queue',
  description:
    'Ready tasks in the order cos_task_claim_next takes them; claimable is false while a dependency is open.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      swimlane: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      limit: Type.Optional(LimitSchema(50)),
      offset: Type.Optional(OffsetSchema),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    tasks: Type.Array(
      Type.Composite([
        CardSchema,
        Type.Object({ claimable: Type.Boolean(), unmet_dependencies: Type.Integer() }),
      ]),
    ),
    total: Type.Integer(),
    next_offset: Type.Union([Type.Integer(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/ready', operationId: 'boardReady' },
  handler(ctx, input) {
    const queue = boardOf(ctx).ready(input);
    const keep = itemsWithinBudget(ctx, queue.tasks, { ...queue, tasks: [] });
    if (keep === queue.tasks.length) return queue;
    return {
      ...queue,
      tasks: queue.tasks.slice(0, keep),
      next_offset: (input.offset ?? 0) + keep,
      meta: { tasks_held_back: queue.tasks.length - keep },
    };
  },
});
