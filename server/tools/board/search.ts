import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { boardOf, KindSchema, LimitSchema, OffsetSchema, PrioritySchema, StatusSchema } from './schemas.ts';

export const taskSearchTool = defineTool({
  name: 'cos_task_search',
  title: 'Search tasks',
  description:
    'Full-text search over task titles and bodies (every word must match; the last may be a prefix), best match first ' +
    '(bm25, title weighted above body), with a snippet around the match (**marked**). Archived tasks only with ' +
    'include_archive or status archive.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      query: Type.String({ minLength: 1, maxLength: 500, description: 'Words to look for' }),
      status: Type.Optional(StatusSchema),
      include_archive: Type.Optional(Type.Boolean({ default: false })),
      limit: Type.Optional(LimitSchema(20)),
      offset: Type.Optional(OffsetSchema),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    results: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        status: StatusSchema,
        kind: KindSchema,
        priority: PrioritySchema,
        path: Type.String(),
        score: Type.Number({ description: 'bm25 relevance; higher is better' }),
        snippet: Type.String(),
      }),
    ),
    next_offset: Type.Union([Type.Integer(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/search', operationId: 'boardSearch' },
  handler: (ctx, input) => boardOf(ctx).search(input.query, input),
});
