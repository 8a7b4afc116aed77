import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { PublicText } from '../../observability/public-text.ts';
import { queryLogs } from '../../observability/queries.ts';
import { defineTool } from '../define.ts';

export const logQueryTool = defineTool({
  name: 'cos_log_query',
  title: 'Query the hub log',
  description:
    "Warnings and errors the hub logged, newest first, with the error's type and message; an error envelope's error id finds its failure (stacks stay in .mcp.log).",
  module: 'observability',
  layer: 'metrics',
  input: Type.Object(
    {
      level: Type.Optional(
        Type.Union([Type.Literal('warn'), Type.Literal('error'), Type.Literal('fatal')], {}),
      ),
      scope: Type.Optional(Type.String({ maxLength: 200 })),
      since: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601' })),
      text: Type.Optional(Type.String({ maxLength: 500 })),
      session: Type.Optional(Type.String({ maxLength: 200 })),
      error_id: Type.Optional(Type.String({ maxLength: 64 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'page size (default 50)' })),
      cursor: Type.Optional(Type.String({ maxLength: 32 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    entries: Type.Array(
      Type.Object({
        id: Type.Integer(),
        at: Type.Integer(),
        level: Type.String(),
        scope: Type.Union([Type.String(), Type.Null()]),
        message: Type.String(),
        error_id: Type.Union([Type.String(), Type.Null()]),
        session: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/observability/logs' },
  handler: (ctx, input) => {
    let since: number | undefined;
    if (input.since !== undefined) {
      since = Date.parse(input.since);
      if (Number.isNaN(since))
        throw new ToolError('validation', 'since must be an ISO 8601 time such as 2026-11-30T10:00:00Z');
    }
    let beforeId: number | undefined;
    if (input.cursor !== undefined) {
      beforeId = Number(input.cursor);
      if (!Number.isInteger(beforeId) || beforeId < 0)
        throw new ToolError('validation', 'cursor must be the next_cursor of a previous page');
    }
    const page = queryLogs(
      ctx.db,
      {
        ...(input.level ? { level: input.level } : {}),
        ...(input.scope ? { scope: input.scope } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(input.text ? { text: input.text } : {}),
        ...(input.session ? { session: input.session } : {}),
        ...(input.error_id ? { error_id: input.error_id } : {}),
        ...(beforeId !== undefined ? { before_id: beforeId } : {}),
        limit: input.limit ?? 50,
      },
      new PublicText(ctx.config),
    );
    return { ...page, meta: { next_cursor: page.next_cursor } };
  },
});
