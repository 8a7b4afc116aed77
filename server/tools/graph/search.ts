import { Type } from '@sinclair/typebox';
import { searchNodes } from '../../graph/queries/resolve.ts';
import { defineTool } from '../define.ts';
import {
  CandidateSchema,
  candidateOut,
  graphCall,
  LimitInput,
  NodeKindSchema,
  OffsetInput,
  TOOL_READ_ONLY,
} from './common.ts';

export const graphSearchTool = defineTool({
  name: 'cos_graph_search',
  title: 'Search the code graph',
  description:
    'Finds symbols, files and headings by name (camelCase and snake_case words and prefixes match), ranked.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      query: Type.String({ minLength: 1, maxLength: 200 }),
      kinds: Type.Optional(Type.Array(NodeKindSchema, { maxItems: 15 })),
      limit: LimitInput(100, 20),
      offset: OffsetInput,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    results: Type.Array(CandidateSchema),
    total_count: Type.Integer({ description: 'ranked matches in all (up to 2,000)' }),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/search' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const limit = input.limit ?? 20;
    const offset = input.offset ?? 0;
    const { candidates, total } = searchNodes(call.r, input.query, {
      limit,
      offset,
      ...(input.kinds?.length ? { kinds: new Set<string>(input.kinds) } : {}),
    });
    const next = offset + candidates.length < total ? offset + candidates.length : null;
    return {
      results: candidates.map(candidateOut),
      total_count: total,
      meta: { ...call.meta, next_offset: next, completeness: 'exact' },
    };
  },
});
