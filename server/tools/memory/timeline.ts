import { Type } from '@sinclair/typebox';
import { MEMORY_TYPES } from '../../memory/port.ts';
import { SESSION_ID_PATTERN, TimelineEntrySchema } from '../../memory/schemas.ts';
import { defineTool } from '../define.ts';

export const TimelineInputSchema = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 90,
        default: 7,
      }),
    ),
    types: Type.Optional(Type.Array(Type.Union(MEMORY_TYPES.map((t) => Type.Literal(t))), { maxItems: 5 })),
    session_id: Type.Optional(Type.String({ pattern: SESSION_ID_PATTERN })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    before: Type.Optional(
      Type.String({
        maxLength: 40,
        description: 'next_before of the previous page',
      }),
    ),
  },
  { additionalProperties: false },
);

export const timelineTool = defineTool({
  name: 'cos_timeline',
  title: 'Recent memory by day',
  description:
    'Observations of the last days, newest first, with a count per UTC day; next_before pages back.',
  module: 'memory',
  layer: 'memory',
  input: TimelineInputSchema,
  output: Type.Object({
    entries: Type.Array(TimelineEntrySchema),
    days: Type.Array(Type.Object({ day: Type.String(), count: Type.Integer() })),
    next_before: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/memory/timeline' },
  handler: (ctx, input) => ctx.services.memory.timeline(input),
});
