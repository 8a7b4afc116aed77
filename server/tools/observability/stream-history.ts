import { Type } from '@sinclair/typebox';
import { HUB_EVENT_TYPES } from '../../events/bus.ts';
import { defineTool } from '../define.ts';

export const HubEventSchema = Type.Object(
  {
    id: Type.Integer(),
    type: Type.Union(HUB_EVENT_TYPES.map((t) => Type.Literal(t))),
    at: Type.Integer({ description: 'ms since the epoch' }),
    data: Type.Unknown(),
  },
  { $id: 'HubEvent' },
);

export const streamHistoryTool = defineTool({
  name: 'cos_stream_history',
  title: 'Recent live events',
  description:
    'The most recent events of the live stream (/api/stream/events), to draw a page before subscribing; `last_id` is the id to resume the stream from.',
  module: 'kernel',
  layer: 'metrics',
  mcp: false,
  input: Type.Object(
    {
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1000, description: 'how many (default 100)' }),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ events: Type.Array(HubEventSchema), last_id: Type.Integer() }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/stream/history' },
  handler: (ctx, input) => ({ events: ctx.events.recent(input.limit ?? 100), last_id: ctx.events.lastId }),
});
