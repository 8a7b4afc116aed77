import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { PublicText } from '../../observability/public-text.ts';
import { timeline } from '../../observability/queries.ts';
import { defineTool } from '../define.ts';

export const timelineTool = defineTool({
  name: 'cos_observability_timeline',
  title: 'Activity timeline',
  description: 'Tool calls, board events and logged warnings merged, newest first, paged with a cursor.',
  module: 'observability',
  layer: 'metrics',
  mcp: false,
  input: Type.Object(
    {
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 500, description: 'page size (default 100)' }),
      ),
      cursor: Type.Optional(Type.String({ maxLength: 80 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    entries: Type.Array(
      Type.Object({
        kind: Type.Union([Type.Literal('tool_call'), Type.Literal('board'), Type.Literal('log')]),
        id: Type.Integer(),
        at: Type.Integer(),
        summary: Type.String(),
        ok: Type.Boolean(),
        detail: Type.Record(Type.String(), Type.Unknown()),
      }),
    ),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/observability/timeline' },
  handler: (ctx, input) => {
    if (input.cursor !== undefined && !/^\d+:(tool_call|board|log):\d+$/.test(input.cursor)) {
      throw new ToolError('validation', 'cursor must be the next_cursor of a previous page');
    }
    ctx.services.observability.calls.flush();
    const page = timeline(ctx.db, new PublicText(ctx.config), input.limit ?? 100, input.cursor);
    return { ...page, meta: { next_cursor: page.next_cursor } };
  },
});
