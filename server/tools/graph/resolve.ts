import { Type } from '@sinclair/typebox';
import { resolveNode, searchNodes } from '../../graph/queries/resolve.ts';
import { defineTool } from '../define.ts';
import {
  CandidateSchema,
  candidateOut,
  graphCall,
  LimitInput,
  NodeRefInput,
  TOOL_READ_ONLY,
} from './common.ts';

export const graphResolveTool = defineTool({
  name: 'cos_graph_resolve',
  title: 'Resolve a name to graph nodes',
  description:
    'Which node a uid, path or name means (null when ambiguous or unknown), the ranked candidates, and how it was resolved.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object({ name: NodeRefInput(), limit: LimitInput(50, 10) }, { additionalProperties: false }),
  output: Type.Object({
    resolved: Type.Union([CandidateSchema, Type.Null()]),
    status: Type.Union([Type.Literal('found'), Type.Literal('ambiguous'), Type.Literal('none')]),
    results: Type.Array(CandidateSchema),
    total: Type.Integer({
      description:
        'candidates in all (the equally good ones when ambiguous); results lists `limit` of them, cos_graph_search pages the rest',
    }),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/resolve' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const res = resolveNode(call.r, ctx.config.repo, input.name, input.limit ?? 10);
    const { candidates, total } = searchNodes(
      call.r,
      input.name.includes('::') ? input.name.split('::').pop()! : input.name,
      {
        limit: input.limit ?? 10,
      },
    );
    if (res.status === 'found') {
      const hit =
        res.from === 'fuzzy_fts5' || res.from === 'exact_unique'
          ? candidates.find((c) => c.node.id === res.node.id)
          : undefined;
      const resolved = hit
        ? candidateOut(hit)
        : candidateOut({
            node: res.node,
            match: res.from === 'direct' ? 'uid' : 'path',
            score: 0,
            in_degree: call.r.inDegree(res.node.id),
          });
      const others = candidates.filter((c) => c.node.id !== res.node.id).map(candidateOut);
      return {
        resolved,
        status: 'found' as const,
        results: [resolved, ...others],
        total: Math.max(total, others.length + 1),
        meta: { ...call.meta, resolved_from: res.from },
      };
    }
    const ranked = res.status === 'ambiguous' ? res.candidates : candidates;
    return {
      resolved: null,
      status: res.status,
      results: ranked.map(candidateOut),
      total: res.status === 'ambiguous' ? res.total : total,
      meta: { ...call.meta, ...(res.status === 'ambiguous' ? { resolved_from: res.from } : {}) },
    };
  },
});
