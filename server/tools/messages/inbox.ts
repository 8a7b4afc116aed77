import { Type } from '@sinclair/typebox';
import { itemsWithinBudget } from '../board/schemas.ts';
import { defineTool } from '../define.ts';
import { AgentSessionSchema, callerOf, InboxMessageSchema } from './schemas.ts';

export const inboxTool = defineTool({
  name: 'cos_inbox',
  title: 'Your messages',
  description:
    'Your messages, newest first; unread_only: not acked yet. Ack handled ones with cos_message_ack.',
  module: 'observability',
  layer: 'routing',
  input: Type.Object(
    {
      agent_session: Type.Optional(AgentSessionSchema),
      unread_only: Type.Optional(Type.Boolean()),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      cursor: Type.Optional(Type.String({ maxLength: 220 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    agent: Type.String({ description: 'whose inbox this is' }),
    messages: Type.Array(InboxMessageSchema),
    unread: Type.Integer({ minimum: 0, description: 'messages not acked yet' }),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/messages/inbox', operationId: 'messagesInbox' },
  async handler(ctx, input) {
    const page = await ctx.services.messages.inbox(callerOf(ctx, input.agent_session), {
      unreadOnly: input.unread_only,
      limit: input.limit,
      cursor: input.cursor,
    });
    // Bodies of up to 8 KB each: cut the page to the agent budget here, so next_cursor still points at
    // the first message not shown.
    const fit = itemsWithinBudget(ctx, page.messages, { ...page, messages: [] });
    const next_cursor =
      fit < page.messages.length ? ctx.services.messages.cursorOf(page.messages[fit - 1]!) : page.next_cursor;
    const messages = page.messages.slice(0, fit);
    return { ...page, messages, next_cursor, meta: { next_cursor } };
  },
});
