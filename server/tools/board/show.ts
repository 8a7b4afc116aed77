import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { boardOf, TaskIdSchema, TaskViewSchema } from './schemas.ts';

export const taskShowTool = defineTool({
  name: 'cos_task_show',
  title: 'Show a task',
  description:
    'One task as its file says now: front matter, Outcome, Read First, Acceptance, Work Log, and the version to pass when you change it.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object({ id: TaskIdSchema }, { additionalProperties: false }),
  output: TaskViewSchema,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/tasks/:id', operationId: 'boardTaskShow' },
  handler: (ctx, input) => boardOf(ctx).show(input.id),
});
