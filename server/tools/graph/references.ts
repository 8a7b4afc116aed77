import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import {
  completenessOf,
  type EdgeTypeName,
  EdgeTypeSchema,
  graphCall,
  LimitInput,
  NodeRefInput,
  NodeSchema,
  nodeOut,
  OffsetInput,
  orAmbiguous,
  resolveArg,
  TOOL_READ_ONLY,
} from './common.ts';

/** Who can point at a node of each kind, when the caller names no edge kinds. */
export const DEFAULT_REFERENCE_KINDS: Record<string, EdgeTypeName[]> = {
  class: [
    'constructs',
    'inherits_from',
    'implements',
    'has_param_type',
    'returns_type',
    'calls',
    'imports',
    'links_to',
  ],
  interface: ['implements', 'inherits_from', 'has_param_type', 'returns_type', 'imports', 'links_to'],
  type: ['has_param_type', 'returns_type', 'inherits_from', 'implements', 'imports', 'links_to'],
  enum: ['has_param_type', 'returns_type', 'calls', 'imports', 'links_to'],
  function: ['calls', 'imports', 'constructs', 'links_to'],
  method: ['calls', 'imports', 'links_to'],
  variable: ['calls', 'imports', 'links_to'],
  constant: ['calls', 'imports', 'links_to'],
  file: ['imports', 'links_to', 'contains', 'tests', 'calls', 'constructs'],
  doc_file: ['links_to', 'cites_heading', 'contains'],
  heading: ['links_to', 'cites_heading', 'contains'],
  folder: ['contains', 'links_to'],
  module: ['imports', 'contains', 'links_to'],
  dependency: ['requires', 'imports'],
  external: [
    'calls',
    'imports',
    'constructs',
    'inherits_from',
    'implements',
    'has_param_type',
    'returns_type',
  ],
};

const ReferenceSchema = Type.Object({
  edge_type: Type.String(),
  uid: Type.String({ description: 'the referring node' }),
  kind: Type.String(),
  label: Type.String(),
  file_path: Type.Union([Type.String(), Type.Null()], { description: 'where the reference is written' }),
  line: Type.Union([Type.Integer(), Type.Null()]),
  column: Type.Union([Type.Integer(), Type.Null()]),
  confidence: Type.Number(),
});

export const graphReferencesTool = defineTool({
  name: 'cos_graph_references',
  title: 'Who points at a node',
  description:
    'Direct references to a node (callers, importers, subclasses, links) with file and line. Transitive: cos_graph_impact.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      node: NodeRefInput(),
      kinds: Type.Optional(
        Type.Array(EdgeTypeSchema, { maxItems: 12, description: "default: by the node's kind" }),
      ),
      min_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0 })),
      limit: LimitInput(500, 100),
      offset: OffsetInput,
    },
    { additionalProperties: false },
  ),
  output: orAmbiguous(
    Type.Object({
      node: NodeSchema,
      kinds: Type.Array(Type.String(), { description: 'the edge kinds searched' }),
      references: Type.Array(ReferenceSchema),
      total_count: Type.Integer(),
      by_kind: Type.Record(Type.String(), Type.Integer()),
    }),
  ),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/references' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const res = resolveArg(ctx, call, input.node);
    if ('ambiguous' in res) return { ...res.ambiguous, meta: call.meta };
    const { r } = call;
    const node = res.node;
    const picked = !input.kinds || input.kinds.length === 0;
    const kinds: string[] = picked
      ? (DEFAULT_REFERENCE_KINDS[node.kind] ?? ['calls', 'imports'])
      : input.kinds!;
    const min = input.min_confidence ?? 0;
    const rows = r
      .in(node.id, new Set(kinds))
      .filter((e) => e.confidence >= min)
      .sort(
        (a, b) =>
          a.edge_type.localeCompare(b.edge_type) || a.other - b.other || (a.line ?? 0) - (b.line ?? 0),
      );
    const byKind: Record<string, number> = {};
    for (const e of rows) byKind[e.edge_type] = (byKind[e.edge_type] ?? 0) + 1;
    const offset = input.offset ?? 0;
    const limit = input.limit ?? 100;
    const references = [];
    for (const e of rows.slice(offset, offset + limit)) {
      const src = r.nodeById(e.other);
      if (!src) continue;
      references.push({
        edge_type: e.edge_type,
        uid: src.uid,
        kind: src.kind,
        label: src.label,
        file_path: src.file_path,
        line: e.line,
        column: e.col,
        confidence: e.confidence,
      });
    }
    const next = offset + limit < rows.length ? offset + limit : null;
    return {
      node: nodeOut(node),
      kinds,
      references,
      total_count: rows.length,
      by_kind: byKind,
      meta: {
        ...call.meta,
        resolved_from: res.from,
        default_kinds_picked: picked,
        node_kind: node.kind,
        next_offset: next,
        ...completenessOf(r, node),
      },
    };
  },
});
