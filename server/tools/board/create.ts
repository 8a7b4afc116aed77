import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import {
  AgentSessionSchema,
  AppetiteSchema,
  actorOf,
  BypassWipSchema,
  boardOf,
  KindSchema,
  LabelListSchema,
  PrioritySchema,
  ReasonSchema,
  SectionTextSchema,
  stringEnum,
  TaskChangeSchema,
  TaskIdListSchema,
  TextListSchema,
} from './schemas.ts';

export const TaskCreateInputSchema = Type.Object(
  {
    title: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Short title; the file name is made from it',
    }),
    kind: Type.Optional(KindSchema),
    priority: Type.Optional(PrioritySchema),
    status: Type.Optional(
      stringEnum(
        ['icebox', 'emergency'] as const,
        'Where the task starts: icebox (default) or emergency (WIP-capped)',
      ),
    ),
    appetite: Type.Optional(AppetiteSchema),
    swimlane: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    epic: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    labels: Type.Optional(LabelListSchema('Labels; "ready" queues the task for cos_task_claim_next')),
    ready: Type.Optional(Type.Boolean({ description: 'Shorthand for adding the "ready" label' })),
    depends_on: Type.Optional(TaskIdListSchema('Tasks that must be complete before this one can be claimed')),
    blocked_by: Type.Optional(TextListSchema('What blocks the task (free text or task ids)')),
    references: Type.Optional(TextListSchema('Links, files or docs worth knowing')),
    outcome: Type.Optional(SectionTextSchema('The Outcome section: what is true when the task is done')),
    read_first: Type.Optional(SectionTextSchema('The Read First section: what to read before starting')),
    acceptance: Type.Optional(SectionTextSchema('The Acceptance section, as Given/When/Then')),
    agent_session: Type.Optional(AgentSessionSchema),
    bypass_wip: Type.Optional(BypassWipSchema),
    reason: Type.Optional(ReasonSchema),
  },
  { additionalProperties: false },
);

export const taskCreateTool = defineTool({
  name: 'cos_task_create',
  title: 'Create a task',
  description:
    'Creates a task file TASK-<n>-<slug>.md (the next free id, zero-padded as the board pads its ids; no ' +
    'concurrent create can take it) in the icebox, or in ' +
    'emergency within its WIP cap. Label it "ready" to queue it for cos_task_claim_next.',
  module: 'tasks',
  layer: 'tasks',
  input: TaskCreateInputSchema,
  output: TaskChangeSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/board/tasks', operationId: 'boardTaskCreate' },
  handler(ctx, input) {
    const { agent_session, ...rest } = input;
    return boardOf(ctx).create(rest, actorOf(ctx, agent_session));
  },
});
