import { type Static, Type } from '@sinclair/typebox';
import { readExcerpt } from '../../graph/queries/source.ts';
import type { GroupedNeighbourRow } from '../../graph/queries/store.ts';
import { defineTool } from '../define.ts';
import {
  completenessOf,
  EdgeTypeSchema,
  graphCall,
  NodeRefInput,
  NodeSchema,
  nodeOut,
  OffsetInput,
  orAmbiguous,
  resolveArg,
  TOOL_READ_ONLY,
  typeSet,
} from './common.ts';

/** Lines listed per neighbour; `count` says how many sites there are. */
const LINES_LISTED = 20;

const NeighbourSchema = Type.Object({
  direction: Type.Union([Type.Literal('out'), Type.Literal('in')], {
    description: 'out: this node → neighbour; in: neighbour → this node',
  }),
  uid: Type.String(),
  kind: Type.String(),
  label: Type.String(),
  file_path: Type.Union([Type.String(), Type.Null()]),
  line: Type.Union([Type.Integer(), Type.Null()], { description: 'the first site (lowest line)' }),
  confidence: Type.Number({ description: 'the highest of its sites' }),
  count: Type.Integer({
    minimum: 1,
    description: 'edges of this type between the two: its reference sites (95 calls of one helper: 95)',
  }),
  lines: Type.Array(Type.Integer(), {
    description: `the sites' lines, ascending, the first ${LINES_LISTED} (count says how many there are)`,
  }),
});

const OmittedSchema = Type.Object({
  edge_type: Type.String(),
  direction: Type.Union([Type.Literal('out'), Type.Literal('in')]),
  listed: Type.Integer({ description: 'neighbours of this type and direction in edges_by_type' }),
  total: Type.Integer({ description: 'all of them (neighbour_counts)' }),
  from: Type.Integer({ description: 'the listed ones are entries from … from + listed - 1 of total' }),
});

const ContextSchema = Type.Object({
  node: NodeSchema,
  edges_by_type: Type.Record(Type.String(), Type.Array(NeighbourSchema)),
  edge_counts: Type.Record(Type.String(), Type.Object({ out: Type.Integer(), in: Type.Integer() }), {
    description: 'edges (reference sites) per type and direction',
  }),
  neighbour_counts: Type.Record(Type.String(), Type.Object({ out: Type.Integer(), in: Type.Integer() }), {
    description: 'distinct neighbours per type and direction: what edges_by_type lists and pages through',
  }),
  omitted: Type.Array(OmittedSchema, {
    description:
      'each edge type and direction that per_type cut: how many are listed of how many; call again with offset = meta.next_offset for the next ones (cos_graph_references pages the incoming ones too)',
  }),
  source: Type.Optional(
    Type.Union([
      Type.Object({
        file_path: Type.String(),
        start_line: Type.Integer(),
        end_line: Type.Integer(),
        text: Type.String(),
        cut: Type.Boolean(),
      }),
      Type.Object({ unavailable: Type.String() }),
    ]),
  ),
  summary: Type.Optional(
    Type.Object({
      depth: Type.Integer(),
      reachable: Type.Integer({ description: 'distinct nodes within depth hops, the node aside' }),
      by_kind: Type.Record(Type.String(), Type.Integer()),
      by_edge_type: Type.Record(Type.String(), Type.Integer()),
      capped: Type.Boolean(),
    }),
  ),
});
type ContextOut = Static<typeof ContextSchema>;

/** The distinct lines of a neighbour's sites (a JSON array from SQLite), ascending, the first LINES_LISTED. */
function siteLines(json: string): number[] {
  const lines = [...new Set((JSON.parse(json) as (number | null)[]).filter((l) => l !== null))];
  return lines.sort((a, b) => a - b).slice(0, LINES_LISTED);
}

/** Nodes reached within `depth` hops, either direction, counted by kind; bounded so a hub node stays cheap. */
const SUMMARY_VISIT_CAP = 20_000;

export const graphContextTool = defineTool({
  name: 'cos_graph_context',
  title: 'A node and its neighbours',
  description:
    'A node and its neighbours by edge type, in and out, with totals; its source on request. Start here to understand a symbol.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      node: NodeRefInput(),
      depth: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 4,
          default: 1,
          description: 'hops counted in a summary (1: none)',
        }),
      ),
      edge_types: Type.Optional(Type.Array(EdgeTypeSchema, { maxItems: 12 })),
      per_type: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 500,
          default: 25,
          description: 'per edge type and direction',
        }),
      ),
      offset: OffsetInput,
      include_source: Type.Optional(Type.Boolean({ default: false })),
      max_source_lines: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000, default: 200 })),
    },
    { additionalProperties: false },
  ),
  output: orAmbiguous(ContextSchema),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/context' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const res = resolveArg(ctx, call, input.node);
    if ('ambiguous' in res) return { ...res.ambiguous, meta: call.meta };
    const { r } = call;
    const node = res.node;
    const types = typeSet(input.edge_types);
    const perType = input.per_type ?? 25;
    const offset = input.offset ?? 0;
    const edgesByType: Record<string, Static<typeof NeighbourSchema>[]> = {};
    const counts: Record<string, { out: number; in: number }> = {};
    const neighbourCounts: Record<string, { out: number; in: number }> = {};
    const omitted: Static<typeof OmittedSchema>[] = [];
    const tally = (to: Record<string, { out: number; in: number }>, type: string) => {
      let c = to[type];
      if (!c) {
        c = { out: 0, in: 0 };
        to[type] = c;
      }
      return c;
    };
    // One entry per neighbour (its sites counted, their lines listed), so a page shows distinct
    // neighbours. Each type and direction is listed from `offset`, at most per_type of it: a node with
    // many outgoing calls still shows its callers, and every cut is said with its total.
    const add = (dir: 'out' | 'in', rows: GroupedNeighbourRow[]) => {
      const listed = new Map<string, number>();
      for (const e of rows) {
        tally(counts, e.edge_type)[dir] += e.count;
        const index = tally(neighbourCounts, e.edge_type)[dir]++;
        if (index < offset) continue;
        const n = listed.get(e.edge_type) ?? 0;
        if (n >= perType) continue;
        const other = r.nodeById(e.other);
        if (!other) continue;
        listed.set(e.edge_type, n + 1);
        let list = edgesByType[e.edge_type];
        if (!list) {
          list = [];
          edgesByType[e.edge_type] = list;
        }
        list.push({
          direction: dir,
          uid: other.uid,
          kind: other.kind,
          label: other.label,
          file_path: other.file_path,
          line: e.line,
          confidence: e.confidence,
          count: e.count,
          lines: siteLines(e.lines),
        });
      }
      for (const [type, c] of Object.entries(neighbourCounts)) {
        const total = c[dir];
        const n = listed.get(type) ?? 0;
        if (n < total)
          omitted.push({ edge_type: type, direction: dir, listed: n, total, from: Math.min(offset, total) });
      }
    };
    add('out', r.outGrouped(node.id, types));
    add('in', r.inGrouped(node.id, types));
    const more = omitted.some((o) => o.from + o.listed < o.total);
    call.meta.next_offset = more ? offset + perType : null;
    const out: ContextOut = {
      node: nodeOut(node),
      edges_by_type: edgesByType,
      edge_counts: counts,
      neighbour_counts: neighbourCounts,
      omitted,
    };
    if (input.include_source) {
      out.source =
        node.file_path && node.start_line !== null
          ? readExcerpt(
              ctx.config.repo,
              node.file_path,
              node.start_line,
              node.end_line ?? node.start_line,
              input.max_source_lines ?? 200,
            )
          : { unavailable: `a ${node.kind} node has no source in the repository` };
    }
    const depth = input.depth ?? 1;
    if (depth >= 2) {
      const seen = new Set<number>([node.id]);
      const byKind: Record<string, number> = {};
      const byEdge: Record<string, number> = {};
      let frontier = [node.id];
      let capped = false;
      for (let d = 0; d < depth && frontier.length > 0 && !capped; d++) {
        const next: number[] = [];
        for (const id of frontier) {
          for (const e of [...r.out(id, types), ...r.in(id, types)]) {
            byEdge[e.edge_type] = (byEdge[e.edge_type] ?? 0) + 1;
            if (seen.has(e.other)) continue;
            seen.add(e.other);
            const n = r.nodeById(e.other);
            if (n) byKind[n.kind] = (byKind[n.kind] ?? 0) + 1;
            next.push(e.other);
            if (seen.size >= SUMMARY_VISIT_CAP) capped = true;
          }
          if (capped) break;
        }
        frontier = next;
      }
      out.summary = { depth, reachable: seen.size - 1, by_kind: byKind, by_edge_type: byEdge, capped };
    }
    const completeness = completenessOf(r, node);
    if (out.summary?.capped) completeness.completeness = 'lower_bound';
    return { ...out, meta: { ...call.meta, resolved_from: res.from, ...completeness } };
  },
});
