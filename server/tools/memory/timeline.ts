import { Type } from '@sinclair/typebox';
import { MemoryTypeSchema, SESSION_ID_PATTERN, TimelineEntrySchema } from '../../memory/schemas.ts';
import { defineTool } from '../define.ts';

export const TimelineInputSchema = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 90,
        default: 7,
        description: 'Whole UTC days back, today included',
      }),
    ),
    types: Type.Optional(
      Type.Array(MemoryTypeSchema, { maxItems: 5, description: 'Only these memory types' }),
    ),
    session_id: Type.Optional(
      Type.String({ pattern: SESSION_ID_PATTERN, description: 'Only records from this agent session' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Entries per page' }),
    ),
    before: Type.Optional(
      Type.String({
        maxLength: 40,
        description: 'Cursor: next_before from the previous answer, for older entries',
      }),
    ),
  },
  { additionalProperties: false },
);

export const timelineTool = defineTool({
  name: 'cos_timeline',
  title: 'Recent memory by day',
  description:
    'Observations recorded in the last days, newest first, with a count per UTC day. Pass next_before back ' +
    'as before for older entries.',
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
