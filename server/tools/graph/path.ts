import { Type } from '@sinclair/typebox';
import { shortestPath } from '../../graph/queries/path.ts';
import { defineTool } from '../define.ts';
import {
  EdgeTypeSchema,
  graphCall,
  NodeRefInput,
  NodeSchema,
  nodeOut,
  orAmbiguous,
  resolveArg,
  TOOL_READ_ONLY,
  typeSet,
} from './common.ts';

export const graphPathTool = defineTool({
  name: 'cos_graph_path',
  title: 'Shortest path between two nodes',
  description:
    'The shortest chain of edges from one node to another within max_hops; found is false when there is none.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      source: NodeRefInput(),
      target: NodeRefInput(),
      max_hops: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, default: 6 })),
      edge_types: Type.Optional(Type.Array(EdgeTypeSchema, { maxItems: 12 })),
      directed: Type.Optional(Type.Boolean({ default: true })),
    },
    { additionalProperties: false },
  ),
  output: orAmbiguous(
    Type.Object({
      found: Type.Boolean(),
      hops: Type.Union([Type.Integer(), Type.Null()]),
      source: NodeSchema,
      target: NodeSchema,
      nodes: Type.Array(NodeSchema, { description: 'the path, source first' }),
      edges: Type.Array(
        Type.Object({
          source: Type.String(),
          target: Type.String(),
          type: Type.String(),
          line: Type.Union([Type.Integer(), Type.Null()]),
          confidence: Type.Number(),
        }),
      ),
    }),
  ),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/path' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const src = resolveArg(ctx, call, input.source, 'source');
    if ('ambiguous' in src) return { ...src.ambiguous, meta: call.meta };
    const dst = resolveArg(ctx, call, input.target, 'target');
    if ('ambiguous' in dst) return { ...dst.ambiguous, meta: call.meta };
    const { r } = call;
    const maxHops = input.max_hops ?? 6;
    const types = typeSet(input.edge_types);
    const found = shortestPath(r, src.node.id, dst.node.id, {
      maxHops,
      directed: input.directed ?? true,
      ...(types ? { types } : {}),
    });
    const meta: Record<string, unknown> = {
      ...call.meta,
      source_resolved_from: src.from,
      target_resolved_from: dst.from,
      max_hops: maxHops,
    };
    delete meta.resolved_from;
    if (!found.nodes) {
      return {
        found: false,
        hops: null,
        source: nodeOut(src.node),
        target: nodeOut(dst.node),
        nodes: [],
        edges: [],
        // No path is proven only when the search ran to its end; unresolved calls may still hide one.
        meta: { ...meta, completeness: 'lower_bound', ...(found.capped ? { capped: true } : {}) },
      };
    }
    const uidOf = new Map<number, string>();
    const nodes = [];
    for (const id of found.nodes) {
      const n = r.nodeById(id);
      if (!n) continue;
      uidOf.set(id, n.uid);
      nodes.push(nodeOut(n));
    }
    const edges = found.hops.map((h) => ({
      source: uidOf.get(h.source) ?? r.nodeById(h.source)?.uid ?? '',
      target: uidOf.get(h.target) ?? r.nodeById(h.target)?.uid ?? '',
      type: h.edge.edge_type,
      line: h.edge.line,
      confidence: h.edge.confidence,
    }));
    return {
      found: true,
      hops: found.hops.length,
      source: nodeOut(src.node),
      target: nodeOut(dst.node),
      nodes,
      edges,
      meta: { ...meta, completeness: 'exact' },
    };
  },
});
