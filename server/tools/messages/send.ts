import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import {
  AgentSessionSchema,
  BodySchema,
  callerOf,
  MessageIdSchema,
  SentMessageSchema,
  SubjectSchema,
} from './schemas.ts';

export const messageSendTool = defineTool({
  name: 'cos_message_send',
  title: 'Send a message',
  description:
    'Sends a message to an agent session, a task\'s claimant ("task:TASK-7"), every live agent ("all") or the people ("human"); it enters the recipient\'s context with its next hook event. thread_id replies in a thread.',
  module: 'observability',
  layer: 'routing',
  input: Type.Object(
    {
      agent_session: Type.Optional(AgentSessionSchema),
      to: Type.String({
        minLength: 1,
        maxLength: 210,
        description: 'a session, "task:TASK-7", "all" or "human"',
      }),
      subject: Type.Optional(SubjectSchema),
      body: BodySchema,
      thread_id: Type.Optional(MessageIdSchema),
      urgent: Type.Optional(Type.Boolean({ description: 'also before its next tool runs' })),
    },
    { additionalProperties: false },
  ),
  output: SentMessageSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/messages', operationId: 'messagesSend' },
  handler: (ctx, input) =>
    ctx.services.messages.send({
      from: callerOf(ctx, input.agent_session),
      to: input.to,
      subject: input.subject,
      body: input.body,
      thread_id: input.thread_id,
      urgent: input.urgent,
    }),
});
