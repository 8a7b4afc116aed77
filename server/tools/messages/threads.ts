import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { ThreadSchema } from './schemas.ts';

export const messageThreadsTool = defineTool({
  name: 'cos_message_threads',
  title: 'Message threads',
  description:
    'Every thread of messages by its latest message, newest first, with its latest messages and who each reached (delivered into a context, acked).',
  module: 'observability',
  layer: 'routing',
  input: Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
      cursor: Type.Optional(Type.String({ maxLength: 220 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    threads: Type.Array(ThreadSchema),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/messages/threads', operationId: 'messagesThreads' },
  // The page's view of every conversation; an agent reads its own through cos_inbox.
  mcp: false,
  async handler(ctx, input) {
    const page = await ctx.services.messages.threads({ limit: input.limit, cursor: input.cursor });
    return { ...page, meta: { next_cursor: page.next_cursor } };
  },
});
