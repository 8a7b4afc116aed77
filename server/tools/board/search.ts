import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import {
  boardOf,
  itemsWithinBudget,
  KindSchema,
  LimitSchema,
  OffsetSchema,
  PrioritySchema,
  StatusSchema,
} from './schemas.ts';

export const taskSearchTool = defineTool({
  name: 'cos_task_search',
  title: 'Search tasks',
  description:
    'Full-text search over task titles and bodies (every word; the last may be a prefix), best first, with snippets. The archive with include_archive: true.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      query: Type.String({ minLength: 1, maxLength: 500 }),
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
    archived_matches: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Only when results is empty because the archive was left out: how many archived tasks match (pass include_archive: true to see them).',
      }),
    ),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/search', operationId: 'boardSearch' },
  handler(ctx, input) {
    const found = boardOf(ctx).search(input.query, input);
    if (found.archived_matches !== undefined) {
      const n = found.archived_matches;
      return {
        ...found,
        meta: {
          hint: `${n} archived task${n === 1 ? '' : 's'} match${n === 1 ? 'es' : ''}: pass include_archive: true to see ${n === 1 ? 'it' : 'them'}`,
        },
      };
    }
    const keep = itemsWithinBudget(ctx, found.results, { ...found, results: [] });
    if (keep === found.results.length) return found;
    return {
      results: found.results.slice(0, keep),
      next_offset: (input.offset ?? 0) + keep,
      meta: { results_held_back: found.results.length - keep },
    };
  },
});
