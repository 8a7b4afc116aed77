import { type Static, Type } from '@sinclair/typebox';
import type { GraphReader } from '../../graph/queries/store.ts';
import { surfaceOf } from '../../graph/queries/surface.ts';
import { type Reached, walk, withMembers } from '../../graph/queries/traverse.ts';
import { defineTool } from '../define.ts';
import {
  completenessOf,
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

/** Edges along which a change propagates as a compile or runtime break. */
const BREAKING = new Set([
  'calls',
  'constructs',
  'inherits_from',
  'implements',
  'imports',
  'has_param_type',
  'returns_type',
  'requires',
]);

export type Tier = 'will_break' | 'should_review' | 'context';

/**
 * will_break: one hop over a breaking edge the resolver was sure of (confidence ≥ 0.9). should_review:
 * two hops, one uncertain hop, or a test. context: further away, documentation, or a name-only guess.
 */
export function tierOf(reach: Reached, kind: string): Tier {
  if (reach.via === 'links_to' || reach.via === 'cites_heading' || reach.confidence < 0.5) return 'context';
  if (reach.via === 'tests') return reach.depth <= 2 ? 'should_review' : 'context';
  if (
    reach.depth === 1 &&
    (BREAKING.has(reach.via) || reach.enclosing) &&
    reach.confidence >= 0.9 &&
    kind !== 'external'
  )
    return 'will_break';
  if (reach.depth <= 2) return 'should_review';
  return 'context';
}

export const ImpactedSchema = Type.Object({
  uid: Type.String(),
  kind: Type.String(),
  label: Type.String(),
  file_path: Type.Union([Type.String(), Type.Null()]),
  depth: Type.Integer({ description: 'hops from the node' }),
  via: Type.String({ description: 'edge type of the last hop' }),
  via_uid: Type.String({ description: 'the node it reaches (or is reached from) on that hop' }),
  line: Type.Union([Type.Integer(), Type.Null()]),
  confidence: Type.Number({ description: 'lowest edge confidence along the way' }),
});
export type Impacted = Static<typeof ImpactedSchema>;

export function impactedOut(r: GraphReader, reach: Reached): Impacted | undefined {
  const n = r.nodeById(reach.id);
  const via = r.nodeById(reach.from);
  if (!n || !via) return undefined;
  return {
    uid: n.uid,
    kind: n.kind,
    label: n.label,
    file_path: n.file_path,
    depth: reach.depth,
    via: reach.via,
    via_uid: via.uid,
    line: reach.line,
    confidence: reach.confidence,
  };
}

/** Surface entries an answer names (the count has them all). */
export const SURFACE_LISTED = 25;

export const TouchedEntrySchema = Type.Object({
  uid: Type.String(),
  kind: Type.String({ description: 'route | mcp_tool | cli_command | event_handler' }),
  name: Type.String({ description: 'METHOD path, or the tool, command or event name' }),
  method: Type.Union([Type.String(), Type.Null()]),
  path: Type.Union([Type.String(), Type.Null()]),
  file: Type.Union([Type.String(), Type.Null()]),
  line: Type.Union([Type.Integer(), Type.Null()]),
  depth: Type.Integer({ description: 'hops from the change; 0: its registration itself' }),
  via_uid: Type.String({ description: 'the handler (or dependent) it was reached from' }),
});
export type TouchedEntry = Static<typeof TouchedEntrySchema>;

/** A reached node as a touched surface entry, or undefined when it is not one. */
export function touchedEntry(r: GraphReader, reach: Reached): TouchedEntry | undefined {
  const n = r.nodeById(reach.id);
  const s = n ? surfaceOf(r.db, n) : undefined;
  const via = r.nodeById(reach.from);
  if (!n || !s || !via) return undefined;
  return {
    uid: n.uid,
    kind: s.kind,
    name: s.name,
    method: s.method,
    path: s.path,
    file: n.file_path,
    line: n.start_line,
    depth: reach.depth,
    via_uid: via.uid,
  };
}

export const graphImpactTool = defineTool({
  name: 'cos_graph_impact',
  title: 'What a change to a node affects',
  description:
    'What a change to a node can break (upstream) or what it relies on (downstream), in tiers will_break, should_review, context.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      node: NodeRefInput(),
      direction: Type.Optional(
        Type.Union([Type.Literal('upstream'), Type.Literal('downstream')], {
          default: 'upstream',
          description: 'upstream: dependents; downstream: dependencies',
        }),
      ),
      depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 6, default: 3 })),
      edge_types: Type.Optional(
        Type.Array(EdgeTypeSchema, {
          maxItems: 12,
          description: 'default all but contains',
        }),
      ),
      min_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0 })),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'per tier' }),
      ),
      offset: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 1_000_000,
          description: 'per tier',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: orAmbiguous(
    Type.Object({
      node: NodeSchema,
      direction: Type.String(),
      depth: Type.Integer(),
      tiers: Type.Object({
        will_break: Type.Array(ImpactedSchema),
        should_review: Type.Array(ImpactedSchema),
        context: Type.Array(ImpactedSchema),
      }),
      tier_counts: Type.Object({
        will_break: Type.Integer(),
        should_review: Type.Integer(),
        context: Type.Integer(),
      }),
      impacted_count: Type.Integer(),
      by_depth: Type.Record(Type.String(), Type.Integer()),
      files_affected: Type.Integer(),
      api_surface: Type.Array(TouchedEntrySchema, {
        description: `routes, MCP tools, CLI commands and event handlers among the impacted (the first ${SURFACE_LISTED})`,
      }),
      api_surface_count: Type.Integer(),
    }),
  ),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/impact' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const res = resolveArg(ctx, call, input.node);
    if ('ambiguous' in res) return { ...res.ambiguous, meta: call.meta };
    const { r } = call;
    const depth = input.depth ?? 3;
    const direction = input.direction ?? 'upstream';
    const limit = input.limit ?? 100;
    const offset = input.offset ?? 0;
    const seeds = withMembers(r, res.node);
    const { reached, capped } = walk(r, seeds, {
      direction,
      depth,
      ...(input.edge_types?.length ? { types: typeSet(input.edge_types)! } : {}),
      ...(input.min_confidence !== undefined ? { minConfidence: input.min_confidence } : {}),
    });
    const tiers: Record<Tier, Impacted[]> = { will_break: [], should_review: [], context: [] };
    const counts: Record<Tier, number> = { will_break: 0, should_review: 0, context: 0 };
    const byDepth: Record<string, number> = {};
    const files = new Set<string>();
    const surface: TouchedEntry[] = [];
    let surfaceCount = 0;
    for (const reach of reached.values()) {
      const item = impactedOut(r, reach);
      if (!item) continue;
      const touched = touchedEntry(r, reach);
      if (touched && surfaceCount++ < SURFACE_LISTED) surface.push(touched);
      const tier = tierOf(reach, item.kind);
      counts[tier]++;
      byDepth[String(reach.depth)] = (byDepth[String(reach.depth)] ?? 0) + 1;
      if (item.file_path) files.add(item.file_path);
      // Nearest first (the walk is breadth-first), so a page never skips a closer dependent.
      if (counts[tier] > offset && tiers[tier].length < limit) tiers[tier].push(item);
    }
    let completeness = capped ? ('lower_bound' as const) : ('exact' as const);
    let unresolved = 0;
    for (const id of seeds.slice(0, 200)) {
      const n = r.nodeById(id);
      if (!n) continue;
      const c = completenessOf(r, n);
      if (c.completeness === 'lower_bound') {
        completeness = 'lower_bound';
        unresolved += c.unresolved_calls_same_name ?? 0;
      }
    }
    return {
      node: nodeOut(res.node),
      direction,
      depth,
      tiers,
      tier_counts: counts,
      impacted_count: reached.size,
      by_depth: byDepth,
      files_affected: files.size,
      api_surface: surface,
      api_surface_count: surfaceCount,
      meta: {
        ...call.meta,
        resolved_from: res.from,
        semantic_scope: `transitive_depth_${depth}`,
        completeness,
        next_offset:
          Math.max(counts.will_break, counts.should_review, counts.context) > offset + limit
            ? offset + limit
            : null,
        ...(unresolved > 0 ? { unresolved_calls_same_name: unresolved } : {}),
        ...(capped ? { capped: true } : {}),
      },
    };
  },
});
