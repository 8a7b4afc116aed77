import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { boardOf, CardSchema, TaskIdSchema } from './schemas.ts';

export const taskDependentsTool = defineTool({
  name: 'cos_task_dependents',
  title: 'What depends on a task',
  description: 'The tasks that depend on this one: what finishing it unblocks.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object({ id: TaskIdSchema }, { additionalProperties: false }),
  output: Type.Object({ task_id: Type.String(), dependents: Type.Array(CardSchema) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/tasks/:id/dependents', operationId: 'boardTaskDependents' },
  handler: (ctx, input) => boardOf(ctx).dependents(input.id),
});
