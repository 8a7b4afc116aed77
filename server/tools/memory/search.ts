import { Type } from '@sinclair/typebox';
import { MemoryHitSchema, MemoryTypeSchema, SESSION_ID_PATTERN } from '../../memory/schemas.ts';
import { CANDIDATE_POOL } from '../../memory/service.ts';
import { defineTool } from '../define.ts';

export const MemorySearchInputSchema = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Words to look for; any script. Operators and quotes are searched as plain text',
    }),
    types: Type.Optional(
      Type.Array(MemoryTypeSchema, { maxItems: 5, description: 'Only these memory types' }),
    ),
    min_confidence: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'Drop records below this' }),
    ),
    max_age_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Only records created within this many days' }),
    ),
    task_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Only records about this task' }),
    ),
    session_id: Type.Optional(
      Type.String({ pattern: SESSION_ID_PATTERN, description: 'Only records from this agent session' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, default: 10, description: 'Results per page' }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: CANDIDATE_POOL - 1,
        default: 0,
        description: 'next_offset from meta',
      }),
    ),
  },
  { additionalProperties: false },
);

export const memorySearchTool = defineTool({
  name: 'cos_search',
  title: 'Search memory',
  description:
    'Find observations recorded by earlier tasks. Ranked by text relevance blended with confidence, recency, ' +
    'impact and how often a record was read; each result carries its score and the parts. Open one with ' +
    'cos_details.',
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
  handler: (ctx, input) => {
    const { results, mode, has_more, next_offset } = ctx.services.memory.search(input);
    return { results, meta: { match_mode: mode, has_more, next_offset } };
  },
});
