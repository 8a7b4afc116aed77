import { type Static, Type } from '@sinclair/typebox';
import { dbCache } from '../../db/caches.ts';
import { ToolError } from '../../errors.ts';
import { type Subgraph, selectSubgraph, toDot, toMermaid } from '../../graph/queries/subgraph.ts';
import type { ToolContext } from '../context.ts';
import { defineTool } from '../define.ts';
import { EdgeTypeSchema, graphCall, NodeRefInput, resolveArg, TOOL_READ_ONLY } from './common.ts';
import { cursorFor, cursorOffset, jsonPage, textPrefix } from './export-page.ts';

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
interface Cached {
  out: ExportOut;
  g: Subgraph;
  capped: boolean;
  resolvedFrom?: string;
}
const caches = dbCache<Map<string, Cached>>();

/**
 * On MCP (ctx.budget set) an export answers the page that fits the agent budget, unless the caller asked
 * for the whole subgraph (`budget: "subgraph"`, up to the contract's 5 MB tier); REST draws it whole.
 */
function fitted(
  ctx: ToolContext,
  input: { cursor?: string | undefined; budget?: 'agent' | 'subgraph' | undefined },
  entry: Cached,
  key: string,
  generation: number,
  meta: Record<string, unknown>,
): { out: ExportOut; meta: Record<string, unknown> } {
  const { out, g } = entry;
  if (ctx.budget === undefined || input.budget === 'subgraph') {
    if (input.cursor !== undefined)
      throw new ToolError(
        'validation',
        'cursor pages an export that fits the agent budget; leave it out here',
      );
    return { out, meta };
  }
  const totals = { nodes: out.node_count, edges: out.edge_count };
  const cutMeta = (kept: { nodes: number; edges: number }, offset: number, next: number | null) => {
    const cut = offset > 0 || kept.nodes < totals.nodes || kept.edges < totals.edges;
    if (!cut) return { ...meta, next_cursor: null };
    const more = [
      next !== null && out.nodes ? 'pass meta.next_cursor as cursor for the next page' : undefined,
      'name a smaller root',
      out.format === 'json'
        ? 'ask for format mermaid (about four times as many nodes per answer)'
        : undefined,
      'or budget "subgraph" for the whole export (up to 5 MB, for a file or a drawing)',
    ].filter(Boolean);
    return {
      ...meta,
      next_cursor: next === null || !out.nodes ? null : cursorFor(next, key, generation),
      page: { offset, nodes: kept.nodes, edges: kept.edges, of_nodes: totals.nodes, of_edges: totals.edges },
      more: `Cut to fit the agent budget: ${more.join(', ')}.`,
    };
  };
  if (out.nodes && out.edges) {
    const offset = cursorOffset(input.cursor, key, generation);
    if (offset >= out.nodes.length && offset > 0)
      throw new ToolError(
        'validation',
        'cursor is past the end of this export; leave it out for the first page',
      );
    // Measured with the longest meta the page can have, so the final one is never larger.
    const probeMeta = cutMeta(totals, offset, offset);
    const page = jsonPage({ ...out, nodes: out.nodes, edges: out.edges }, offset, ctx.budget, probeMeta);
    const pageOut = { ...page.out, node_count: page.nodes, edge_count: page.edges };
    return { out: pageOut, meta: cutMeta(page, offset, page.next) };
  }
  if (input.cursor !== undefined)
    throw new ToolError(
      'validation',
      'cursor pages JSON exports only; for more of a text export name a smaller root',
    );
  const frame = JSON.stringify({
    ok: true,
    data: { ...out, text: '', meta: cutMeta(totals, 1, null) },
  }).length;
  const text = textPrefix(g, out.format as 'mermaid' | 'dot', ctx.budget, frame);
  return {
    out: { ...out, text: text.text, node_count: text.nodes, edge_count: text.edges },
    meta: cutMeta(text, 0, null),
  };
}

export const graphExportTool = defineTool({
  name: 'cos_graph_export',
  title: 'Export a subgraph',
  description:
    'A subgraph as JSON, Mermaid or DOT: the containment tree under a root, or dependencies around it.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      format: Type.Optional(
        Type.Union([Type.Literal('json'), Type.Literal('mermaid'), Type.Literal('dot')], {
          default: 'json',
        }),
      ),
      root: Type.Optional(NodeRefInput('default the repository root')),
      mode: Type.Optional(
        Type.Union([Type.Literal('containment'), Type.Literal('dependencies'), Type.Literal('auto')], {
          default: 'auto',
          description: 'auto: containment for folders, else dependencies',
        }),
      ),
      edge_types: Type.Optional(
        Type.Array(EdgeTypeSchema, {
          maxItems: 12,
          description: 'default all but contains, links_to, cites_heading',
        }),
      ),
      max_nodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000, default: 500 })),
      max_hops: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 3 })),
      cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'meta.next_cursor' })),
      budget: Type.Optional(
        Type.Union([Type.Literal('agent'), Type.Literal('subgraph')], {
          default: 'agent',
          description: 'agent: pages that fit an answer; subgraph: all of it (up to 5 MB)',
        }),
      ),
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
      const answer = fitted(ctx, input, hit, key, call.freshness.generation, {
        ...call.meta,
        cached: true,
        capped: hit.capped,
        completeness: completenessOfExport(hit.out.mode, hit.capped),
        ...(hit.resolvedFrom ? { resolved_from: hit.resolvedFrom } : {}),
      });
      return { ...answer.out, meta: answer.meta };
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
    const entry: Cached = { out, g, capped: g.capped, ...(resolvedFrom ? { resolvedFrom } : {}) };
    cache.set(key, entry);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    const answer = fitted(ctx, input, entry, key, call.freshness.generation, {
      ...call.meta,
      cached: false,
      capped: g.capped,
      completeness: completenessOfExport(mode, g.capped),
      ...(resolvedFrom ? { resolved_from: resolvedFrom } : {}),
    });
    return { ...answer.out, meta: answer.meta };
  },
});
