import { Type } from '@sinclair/typebox';
import { rankedPage, ranking } from '../../graph/queries/ranking.ts';
import { defineTool } from '../define.ts';
import { LimitInput, NodeKindSchema, TOOL_READ_ONLY } from './common.ts';
import { fittingCount, mapCall, nextCursor, PROBE_CURSOR, pageStart, pastEnd } from './map-common.ts';

export const graphRankingTool = defineTool({
  name: 'cos_graph_ranking',
  title: 'Symbols by importance',
  description:
    'Symbols and files by importance (PageRank on the reference graph), personalised by query when given: what the symbols it names lean on. Externals left out unless external.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      query: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      kind: Type.Optional(NodeKindSchema),
      external: Type.Optional(Type.Boolean({ default: false })),
      limit: LimitInput(200, 20),
      cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'meta.next_cursor' })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    total_count: Type.Integer(),
    results: Type.Array(
      Type.Object({
        uid: Type.String(),
        kind: Type.String(),
        label: Type.String(),
        file_path: Type.Union([Type.String(), Type.Null()]),
        score: Type.Number({ description: 'rank over the average (1 = average)' }),
        in_degree: Type.Integer({ description: 'distinct nodes that reference it' }),
      }),
    ),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/ranking' },
  handler: async (ctx, input) => {
    const call = await mapCall(ctx);
    const { m, r } = call;
    const limit = input.limit ?? 20;
    const request = { q: input.query ?? null, kind: input.kind ?? null, ext: input.external === true };
    const offset = pageStart(input.cursor, request, m);
    const ranked = await ranking(r, m, { query: input.query, external: input.external });
    const page = rankedPage(m, ranked, input.kind, offset, limit);
    pastEnd(offset, page.total);
    const results = page.indices.map((i) => ({
      uid: m.uids[i]!,
      kind: m.kinds[i]!,
      label: m.labels[i]!,
      file_path: m.files[i] ?? null,
      score: Math.round(ranked.score[i]! * ranked.live * 1000) / 1000,
      in_degree: m.inDegree[i]!,
    }));
    const meta = {
      ...call.meta,
      ...(input.query ? { seeds: ranked.seeds, iterations: ranked.iterations } : {}),
      completeness: 'lower_bound',
    };
    const answer = (list: readonly (typeof results)[number][]) => ({
      total_count: page.total,
      results: [...list],
      meta: { ...meta, next_cursor: PROBE_CURSOR },
    });
    const k = fittingCount(ctx, results, answer);
    return {
      ...answer(results.slice(0, k)),
      meta: { ...meta, next_cursor: nextCursor(offset + k, page.total, request, m) },
    };
  },
});
