import { type Static, Type } from '@sinclair/typebox';
import type { Db } from '../../db/open.ts';
import { ToolError } from '../../errors.ts';
import { selectSubgraph, toDot, toMermaid } from '../../graph/queries/subgraph.ts';
import { defineTool } from '../define.ts';
import { EdgeTypeSchema, graphCall, NodeRefInput, resolveArg, TOOL_READ_ONLY } from './common.ts';

const DEPENDENCY_TYPES = [
  'imports',
  'calls',
  'inherits_from',
  'implements',
  'constructs',
  'has_param_type',
  'returns_type',
  'requires',
  'tests',
];

const ExportSchema = Type.Object({
  format: Type.Union([Type.Literal('json'), Type.Literal('mermaid'), Type.Literal('dot')]),
  mode: Type.Union([Type.Literal('containment'), Type.Literal('dependencies')], {
    description: 'the mode used (auto resolved)',
  }),
  root: Type.Union([Type.String(), Type.Null()]),
  node_count: Type.Integer(),
  edge_count: Type.Integer(),
  nodes: Type.Optional(
    Type.Array(
      Type.Object({
        uid: Type.String(),
        kind: Type.String(),
        label: Type.String(),
        file_path: Type.Union([Type.String(), Type.Null()]),
        start_line: Type.Union([Type.Integer(), Type.Null()]),
      }),
    ),
  ),
  edges: Type.Optional(
    Type.Array(
      Type.Object({
        source: Type.String(),
        target: Type.String(),
        type: Type.String(),
        confidence: Type.Number(),
      }),
    ),
  ),
  text: Type.Optional(Type.String({ description: 'the Mermaid or DOT source' })),
});
type ExportOut = Static<typeof ExportSchema>;

/** A containment tree is exact unless max_nodes cut it; dependency edges can hide behind unresolved calls. */
const completenessOfExport = (mode: string, capped: boolean) =>
  mode === 'containment' && !capped ? 'exact' : 'lower_bound';

/** Answers per graph generation: the SPA re-asks for the same view often, and the graph only changes with a pass. */
const CACHE_SIZE = 16;
const caches = new WeakMap<Db, Map<string, { out: ExportOut; capped: boolean; resolvedFrom?: string }>>();

export const graphExportTool = defineTool({
  name: 'cos_graph_export',
  title: 'Export a subgraph',
  description:
    'A subgraph as JSON `{nodes, edges}`, Mermaid or DOT: containment (the folder/file/symbol tree under a root, default the repo root) or dependencies (imports, calls, inheritance… around a root, or the most connected nodes without one); auto picks containment for folders and the repo, dependencies otherwise. max_nodes ≤ 2000 and max_hops bound it; meta.capped says when max_nodes stopped it.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      format: Type.Optional(
        Type.Union([Type.Literal('json'), Type.Literal('mermaid'), Type.Literal('dot')], {
          description: 'default json',
        }),
      ),
      root: Type.Optional(NodeRefInput('where to start (default the repository root)')),
      mode: Type.Optional(
        Type.Union([Type.Literal('containment'), Type.Literal('dependencies'), Type.Literal('auto')], {
          description: 'default auto',
        }),
      ),
      edge_types: Type.Optional(
        Type.Array(EdgeTypeSchema, {
          maxItems: 12,
          description: 'dependency edges to follow and show (default: all but contains, links and cites)',
        }),
      ),
      max_nodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000, description: 'default 500' })),
      max_hops: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'default 3' })),
    },
    { additionalProperties: false },
  ),
  output: ExportSchema,
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/export' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const { r } = call;
    const format = input.format ?? 'json';
    const key = JSON.stringify([
      call.freshness.generation,
      format,
      input.root ?? null,
      input.mode ?? 'auto',
      [...(input.edge_types ?? [])].sort(),
      input.max_nodes ?? 500,
      input.max_hops ?? 3,
    ]);
    let cache = caches.get(ctx.db);
    if (!cache) {
      cache = new Map();
      caches.set(ctx.db, cache);
    }
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return {
        ...hit.out,
        meta: {
          ...call.meta,
          cached: true,
          capped: hit.capped,
          completeness: completenessOfExport(hit.out.mode, hit.capped),
          ...(hit.resolvedFrom ? { resolved_from: hit.resolvedFrom } : {}),
        },
      };
    }

    let root = r.node('folder:.');
    let resolvedFrom: string | undefined;
    if (input.root) {
      const res = resolveArg(ctx, call, input.root, 'root');
      if ('ambiguous' in res)
        throw new ToolError(
          'validation',
          `root "${input.root}" is ambiguous: ${res.ambiguous.results.map((c) => c.uid).join(', ')}`,
        );
      root = res.node;
      resolvedFrom = res.from;
    }
    const mode =
      input.mode && input.mode !== 'auto'
        ? input.mode
        : !root || root.kind === 'folder'
          ? 'containment'
          : 'dependencies';
    const types = new Set<string>(
      input.edge_types?.length ? input.edge_types : mode === 'containment' ? [] : DEPENDENCY_TYPES,
    );
    const g = selectSubgraph(r, {
      ...(root && (input.root || mode === 'containment') ? { root } : {}),
      mode,
      types,
      maxNodes: input.max_nodes ?? 500,
      maxHops: input.max_hops ?? 3,
      generation: call.freshness.generation,
    });
    const base = {
      format,
      mode,
      root: root && (input.root || mode === 'containment') ? root.uid : null,
      node_count: g.nodes.length,
      edge_count: g.edges.length,
    };
    let out: ExportOut;
    if (format === 'json') {
      const uid = new Map(g.nodes.map((n) => [n.id, n.uid]));
      out = {
        ...base,
        nodes: g.nodes.map((n) => ({
          uid: n.uid,
          kind: n.kind,
          label: n.label,
          file_path: n.file_path,
          start_line: n.start_line,
        })),
        edges: g.edges.map((e) => ({
          source: uid.get(e.source)!,
          target: uid.get(e.target)!,
          type: e.type,
          confidence: e.confidence,
        })),
      };
    } else {
      out = { ...base, text: format === 'mermaid' ? toMermaid(g) : toDot(g) };
    }
    cache.set(key, { out, capped: g.capped, ...(resolvedFrom ? { resolvedFrom } : {}) });
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return {
      ...out,
      meta: {
        ...call.meta,
        cached: false,
        capped: g.capped,
        completeness: completenessOfExport(mode, g.capped),
        ...(resolvedFrom ? { resolved_from: resolvedFrom } : {}),
      },
    };
  },
});
