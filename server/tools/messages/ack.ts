import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { AgentSessionSchema, callerOf, MessageIdSchema } from './schemas.ts';

export const messageAckTool = defineTool({
  name: 'cos_message_ack',
  title: 'Ack messages',
  description:
    'Marks messages of your inbox handled. An id not in your inbox is not_found, and then nothing is acked.',
  module: 'observability',
  layer: 'routing',
  input: Type.Object(
    {
      agent_session: Type.Optional(AgentSessionSchema),
      ids: Type.Array(MessageIdSchema, { minItems: 1, maxItems: 100 }),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    agent: Type.String(),
    acked: Type.Array(Type.Object({ id: Type.String(), acked_at: Type.String({ format: 'date-time' }) })),
    unread: Type.Integer({ minimum: 0, description: 'messages still not acked' }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'POST', path: '/api/messages/ack', operationId: 'messagesAck' },
  handler: (ctx, input) => ctx.services.messages.ack(callerOf(ctx, input.agent_session), input.ids),
});
