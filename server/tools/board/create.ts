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
    }),
    kind: Type.Optional(KindSchema),
    priority: Type.Optional(PrioritySchema),
    status: Type.Optional(stringEnum(['icebox', 'emergency'] as const)),
    appetite: Type.Optional(AppetiteSchema),
    swimlane: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    epic: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    labels: Type.Optional(LabelListSchema()),
    ready: Type.Optional(Type.Boolean({})),
    depends_on: Type.Optional(TaskIdListSchema()),
    blocked_by: Type.Optional(TextListSchema()),
    references: Type.Optional(TextListSchema()),
    outcome: Type.Optional(SectionTextSchema()),
    read_first: Type.Optional(SectionTextSchema()),
    acceptance: Type.Optional(SectionTextSchema()),
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
    'Creates a task file in the icebox (or emergency, within its WIP cap). Label it ready to queue it for cos_task_claim_next.',
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
