import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import {
  AgentSessionSchema,
  actorOf,
  boardOf,
  ExpectedVersionSchema,
  TaskChangeSchema,
  TaskIdSchema,
} from './schemas.ts';

export const workLogAppendTool = defineTool({
  name: 'cos_work_log_append',
  title: 'Append to a Work Log',
  description:
    "Adds a timestamped line to a task's Work Log: what was done, found or decided. Appends never conflict.",
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      id: TaskIdSchema,
      text: Type.String({
        minLength: 1,
        maxLength: 10_000,
      }),
      expected_version: Type.Optional(ExpectedVersionSchema),
      agent_session: Type.Optional(AgentSessionSchema),
    },
    { additionalProperties: false },
  ),
  output: TaskChangeSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/board/tasks/:id/work-log', operationId: 'boardWorkLogAppend' },
  handler: (ctx, input) =>
    boardOf(ctx).appendWorkLog(
      input.id,
      input.text,
      { expected_version: input.expected_version },
      actorOf(ctx, input.agent_session),
    ),
});
