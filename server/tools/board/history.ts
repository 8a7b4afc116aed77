import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { boardOf, itemsWithinBudget, LimitSchema, stringEnum, TaskIdSchema } from './schemas.ts';

export const taskHistoryTool = defineTool({
  name: 'cos_task_history',
  title: 'Task history',
  description:
    'What happened to a task, oldest first: moves with reasons, edits, work-log entries, and changes made by hand or by git.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      id: TaskIdSchema,
      after_seq: Type.Optional(
        Type.Integer({ minimum: 0, description: 'next_after_seq of the previous page' }),
      ),
      limit: Type.Optional(LimitSchema(100)),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    task_id: Type.String(),
    events: Type.Array(
      Type.Object({
        seq: Type.Integer(),
        at: Type.String(),
        type: stringEnum(['created', 'status', 'edit', 'work_log', 'file', 'deleted'] as const),
        from_status: Type.Union([Type.String(), Type.Null()]),
        to_status: Type.Union([Type.String(), Type.Null()]),
        agent_session: Type.Union([Type.String(), Type.Null()]),
        source: stringEnum(['file', 'api', 'mcp'] as const),
        reason: Type.Union([Type.String(), Type.Null()]),
        version: Type.Union([Type.Integer(), Type.Null()]),
        detail: Type.Unknown(),
      }),
    ),
    next_after_seq: Type.Union([Type.Integer(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/tasks/:id/history', operationId: 'boardTaskHistory' },
  handler(ctx, input) {
    const history = boardOf(ctx).history(input.id, input);
    const keep = itemsWithinBudget(ctx, history.events, { ...history, events: [] });
    if (keep === history.events.length) return history;
    const events = history.events.slice(0, keep);
    return {
      ...history,
      events,
      next_after_seq: events[events.length - 1]?.seq ?? null,
      meta: { events_held_back: history.events.length - keep },
    };
  },
});
