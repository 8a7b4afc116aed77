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

const clearable = (description: string) =>
  Type.String({ maxLength: 100, description: `${description}; an empty string clears it` });

export const taskEditTool = defineTool({
  name: 'cos_task_edit',
  title: 'Edit a task',
  description:
    "Changes a task's fields or its Outcome / Read First / Acceptance sections (status changes go through " +
    'cos_task_move, notes through cos_work_log_append). Only the changed lines of the file are rewritten; keys and ' +
    'sections the hub does not know are kept byte for byte. Pass expected_version to refuse the edit if someone ' +
    'changed the task since you read it.',
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
          description: '30m, 2h, 1d, 1w, 1cy; "" clears it',
        }),
      ),
      swimlane: Type.Optional(clearable('Swimlane')),
      epic: Type.Optional(clearable('Epic')),
      labels: Type.Optional(LabelListSchema('Replaces all labels')),
      add_labels: Type.Optional(LabelListSchema('Labels to add, e.g. ["ready"]')),
      remove_labels: Type.Optional(LabelListSchema('Labels to remove')),
      depends_on: Type.Optional(TaskIdListSchema('Replaces the dependencies (must exist, no cycles)')),
      blocked_by: Type.Optional(TextListSchema('Replaces what blocks the task')),
      references: Type.Optional(TextListSchema('Replaces the references')),
      outcome: Type.Optional(SectionTextSchema('Replaces the Outcome section')),
      read_first: Type.Optional(SectionTextSchema('Replaces the Read First section')),
      acceptance: Type.Optional(SectionTextSchema('Replaces the Acceptance section (Given/When/Then)')),
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
