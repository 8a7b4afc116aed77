import { Type } from '@sinclair/typebox';
import { parseFailure } from '../../graph/queries/parse-failures.ts';
import { defineTool } from '../define.ts';
import { graphCall, TOOL_READ_ONLY } from './common.ts';

/** Files listed by name; the count is always the total. */
const PARSE_FAILURES_LISTED = 20;

export const graphStatsTool = defineTool({
  name: 'cos_graph_stats',
  title: 'Code graph statistics',
  description:
    "The code graph's size and shape: nodes by kind, edges by type, languages, parse failures, resolution rate, most referenced nodes.",
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      top: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 10 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    nodes: Type.Integer(),
    edges: Type.Integer(),
    files: Type.Integer(),
    nodes_by_kind: Type.Record(Type.String(), Type.Integer()),
    edges_by_type: Type.Record(Type.String(), Type.Integer()),
    files_by_language: Type.Record(
      Type.String(),
      Type.Object({ files: Type.Integer(), bytes: Type.Integer() }),
    ),
    files_with_parse_errors: Type.Integer(),
    parse_failures: Type.Array(
      Type.Object({
        path: Type.String(),
        language: Type.String(),
        line: Type.Union([Type.Integer(), Type.Null()], { description: "the first error's line" }),
        column: Type.Union([Type.Integer(), Type.Null()]),
        kind: Type.String({ description: 'unexpected "…" or missing "…"' }),
      }),
      {
        description: `the first ${PARSE_FAILURES_LISTED} files that did not parse cleanly, by path; files_with_parse_errors is the total, cos_graph_doctor {"sample_size": 100} lists more`,
      },
    ),
    calls: Type.Object({
      total: Type.Integer(),
      in_repo: Type.Integer({ description: 'resolved to a symbol of the repository' }),
      external: Type.Integer({ description: 'to a library or builtin (unresolved included)' }),
      unresolved: Type.Integer({ description: 'receiver unknown: the target is only a name' }),
    }),
    nodes_top: Type.Array(
      Type.Object({
        uid: Type.String(),
        kind: Type.String(),
        label: Type.String(),
        in_degree: Type.Integer(),
      }),
    ),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/stats' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const { s } = call.r;
    const counts = s.counts.get() as { nodes: number; edges: number; files: number };
    const nodesByKind: Record<string, number> = {};
    for (const row of s.nodesByKind.all() as { kind: string; n: number }[]) nodesByKind[row.kind] = row.n;
    const edgesByType: Record<string, number> = {};
    for (const row of s.edgesByType.all() as { edge_type: string; n: number }[])
      edgesByType[row.edge_type] = row.n;
    const byLanguage: Record<string, { files: number; bytes: number }> = {};
    for (const row of s.filesByLanguage.all() as { language: string; n: number; bytes: number }[])
      byLanguage[row.language] = { files: row.n, bytes: row.bytes };
    const failed = s.filesWithErrors.get() as number;
    if (failed > PARSE_FAILURES_LISTED) {
      call.meta.parse_failures_listed = PARSE_FAILURES_LISTED;
      call.meta.parse_failures_total = failed;
      call.meta.parse_failures_rest =
        'cos_graph_doctor {"sample_size": 100} lists up to 100; the rest are in graph_files';
    }
    const total = edgesByType.calls ?? 0;
    const external = s.externalCalls.get() as number;
    const top = [];
    for (const row of s.topInDegree.all(input.top ?? 10) as { id: number; n: number }[]) {
      const n = call.r.nodeById(row.id);
      if (n) top.push({ uid: n.uid, kind: n.kind, label: n.label, in_degree: row.n });
    }
    return {
      ...counts,
      nodes_by_kind: nodesByKind,
      edges_by_type: edgesByType,
      files_by_language: byLanguage,
      files_with_parse_errors: failed,
      parse_failures: (
        s.parseFailures.all(PARSE_FAILURES_LISTED) as { path: string; language: string; error: string }[]
      ).map(parseFailure),
      calls: { total, in_repo: total - external, external, unresolved: s.unresolvedCalls.get() as number },
      nodes_top: top,
      meta: { ...call.meta, completeness: 'exact' },
    };
  },
});
