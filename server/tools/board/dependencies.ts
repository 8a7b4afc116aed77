import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { boardOf, CardSchema, TaskIdSchema } from './schemas.ts';

export const taskDependenciesTool = defineTool({
  name: 'cos_task_dependencies',
  title: 'What a task depends on',
  description:
    'The tasks this one depends on, each done or not, and all_complete: whether its dependencies let it be claimed.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object({ id: TaskIdSchema }, { additionalProperties: false }),
  output: Type.Object({
    task_id: Type.String(),
    dependencies: Type.Array(Type.Composite([CardSchema, Type.Object({ done: Type.Boolean() })])),
    missing: Type.Array(Type.String()),
    all_complete: Type.Boolean(),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/tasks/:id/dependencies', operationId: 'boardTaskDependencies' },
  handler: (ctx, input) => boardOf(ctx).dependencies(input.id),
});
