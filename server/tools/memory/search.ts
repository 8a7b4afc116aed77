import { Type } from '@sinclair/typebox';
import { andThen, MEMORY_TYPES } from '../../memory/port.ts';
import { MemoryHitSchema, SESSION_ID_PATTERN } from '../../memory/schemas.ts';
import { CANDIDATE_POOL } from '../../memory/service.ts';
import { defineTool } from '../define.ts';

export const MemorySearchInputSchema = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 500,
    }),
    types: Type.Optional(Type.Array(Type.Union(MEMORY_TYPES.map((t) => Type.Literal(t))), { maxItems: 5 })),
    min_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    max_age_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
    task_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    session_id: Type.Optional(Type.String({ pattern: SESSION_ID_PATTERN })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 10 })),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: CANDIDATE_POOL - 1,
        default: 0,
      }),
    ),
  },
  { additionalProperties: false },
);

export const memorySearchTool = defineTool({
  name: 'cos_search',
  title: 'Search memory',
  description:
    'Searches what earlier tasks recorded, ranked by relevance, confidence, recency and impact. Open a result with cos_details.',
  module: 'memory',
  layer: 'memory',
  input: MemorySearchInputSchema,
  output: Type.Object({
    results: Type.Array(MemoryHitSchema),
    meta: Type.Object({
      match_mode: Type.Union([Type.Literal('words'), Type.Literal('any_words'), Type.Literal('substring')], {
        description: 'words: all terms matched; any_words: some did; substring: matched inside words',
      }),
      has_more: Type.Boolean(),
      next_offset: Type.Union([Type.Integer(), Type.Null()]),
    }),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/search/memory', tag: 'search' },
  handler: (ctx, input) =>
    andThen(ctx.services.memory.search(input), ({ results, mode, has_more, next_offset }) => ({
      results,
      meta: { match_mode: mode, has_more, next_offset },
    })),
});
