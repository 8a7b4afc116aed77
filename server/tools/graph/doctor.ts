import { Type } from '@sinclair/typebox';
import {
  DOCTOR_CATEGORIES,
  doctorPass,
  FIXABLE_CATEGORIES,
  graphCounts,
  INFORMATIONAL_CATEGORIES,
} from '../../graph/queries/doctor.ts';
import { defineTool } from '../define.ts';
import { graphCall, graphService } from './common.ts';

const IssueSchema = Type.Object({
  category: Type.Union(DOCTOR_CATEGORIES.map((c) => Type.Literal(c))),
  severity: Type.Union([Type.Literal('real'), Type.Literal('info')]),
  count: Type.Integer(),
  fixable: Type.Boolean({ description: 'fix: true deletes these rows' }),
  sample: Type.Array(Type.String()),
  path_count: Type.Optional(Type.Integer()),
});

export const graphDoctorTool = defineTool({
  name: 'cos_graph_doctor',
  title: 'Check the code graph',
  description:
    'Checks the code graph (dangling edges, orphans, stale paths, parse failures); fix: true deletes the fixable findings.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      fix: Type.Optional(Type.Boolean({ default: false })),
      sample_size: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 5 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    healthy: Type.Boolean(),
    issues: Type.Array(IssueSchema),
    fixed: Type.Union([Type.Record(Type.String(), Type.Integer()), Type.Null()], {
      description: 'rows deleted per category when fix was asked for',
    }),
    stats: Type.Object({
      issue_count: Type.Integer({ description: 'categories with real findings' }),
      issue_count_total: Type.Integer({ description: 'categories with findings, informational included' }),
      finding_count: Type.Integer({ description: 'real findings (rows) across categories' }),
      nodes: Type.Integer(),
      edges: Type.Integer(),
      files: Type.Integer(),
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'POST', path: '/api/graph/doctor' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const sampleSize = input.sample_size ?? 5;
    const { findings, fixed } = doctorPass(ctx.db, ctx.config.repo, { fix: input.fix === true, sampleSize });
    if (fixed) {
      // The indexer keeps a uid → id map; it must forget the deleted rows before its next pass.
      graphService(ctx)
        ?.reindex({ reload: true })
        .catch((err: unknown) => ctx.logger.warn({ err }, 'graph reload after doctor fix failed'));
    }
    const info = new Set<string>(INFORMATIONAL_CATEGORIES);
    const fixable = new Set<string>(FIXABLE_CATEGORIES);
    const issues = findings.map((f) => ({
      category: f.category,
      severity: info.has(f.category) ? ('info' as const) : ('real' as const),
      count: f.count,
      fixable: fixable.has(f.category),
      sample: f.sample,
      ...(f.path_count !== undefined ? { path_count: f.path_count } : {}),
    }));
    const real = issues.filter((i) => i.severity === 'real');
    return {
      healthy: real.length === 0,
      issues,
      fixed,
      stats: {
        issue_count: real.length,
        issue_count_total: issues.length,
        finding_count: real.reduce((n, i) => n + i.count, 0),
        ...graphCounts(ctx.db),
      },
      meta: {
        ...call.meta,
        fixable_categories: [...FIXABLE_CATEGORIES],
        informational_categories: [...INFORMATIONAL_CATEGORIES],
      },
    };
  },
});
