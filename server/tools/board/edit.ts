import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import {
  AgentSessionSchema,
  actorOf,
  boardOf,
  ExpectedVersionSchema,
  KindSchema,
  LabelListSchema,
  PrioritySchema,
  SectionTextSchema,
  TaskChangeSchema,
  TaskIdListSchema,
  TaskIdSchema,
  TextListSchema,
} from './schemas.ts';

const clearable = () => Type.String({ maxLength: 100, description: '"" clears it' });

export const taskEditTool = defineTool({
  name: 'cos_task_edit',
  title: 'Edit a task',
  description:
    "Changes a task's fields or sections, keeping what the hub does not know byte for byte. Status: cos_task_move; notes: cos_work_log_append.",
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      id: TaskIdSchema,
      expected_version: Type.Optional(ExpectedVersionSchema),
      title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      kind: Type.Optional(KindSchema),
      priority: Type.Optional(PrioritySchema),
      appetite: Type.Optional(
        Type.String({
          pattern: '^$|^[1-9][0-9]{0,3}(m|h|d|w|cy)$',
          maxLength: 8,
          description: '"" clears it',
        }),
      ),
      swimlane: Type.Optional(clearable()),
      epic: Type.Optional(clearable()),
      labels: Type.Optional(LabelListSchema()),
      add_labels: Type.Optional(LabelListSchema()),
      remove_labels: Type.Optional(LabelListSchema()),
      depends_on: Type.Optional(TaskIdListSchema()),
      blocked_by: Type.Optional(TextListSchema()),
      references: Type.Optional(TextListSchema()),
      outcome: Type.Optional(SectionTextSchema()),
      read_first: Type.Optional(SectionTextSchema()),
      acceptance: Type.Optional(SectionTextSchema()),
      agent_session: Type.Optional(AgentSessionSchema),
    },
    { additionalProperties: false },
  ),
  output: TaskChangeSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'PATCH', path: '/api/board/tasks/:id', operationId: 'boardTaskEdit' },
  handler(ctx, input) {
    const { id, expected_version, agent_session, ...patch } = input;
    return boardOf(ctx).edit(id, patch, { expected_version }, actorOf(ctx, agent_session));
  },
});
