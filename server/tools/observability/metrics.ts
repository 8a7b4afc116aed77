import { Type } from '@sinclair/typebox';
import { toolMetrics, WINDOWS } from '../../observability/queries.ts';
import { defineTool } from '../define.ts';
import { WindowSchema } from './schemas.ts';

export const metricsTool = defineTool({
  name: 'cos_metrics',
  title: 'Tool-call metrics',
  description:
    'Per tool over a window: calls, errors by category, p50/p95/p99 latency, truncation rate, answer size: which tools fail or are slow.',
  module: 'observability',
  layer: 'metrics',
  input: Type.Object(
    {
      window: Type.Optional(WindowSchema),
      tool: Type.Optional(Type.String({ maxLength: 200 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    window: Type.String(),
    since: Type.Integer({ description: 'ms since the epoch' }),
    total_calls: Type.Integer(),
    rows: Type.Array(
      Type.Object({
        tool: Type.String(),
        calls: Type.Integer(),
        errors: Type.Integer(),
        error_rate: Type.Number(),
        errors_by_category: Type.Record(Type.String(), Type.Integer()),
        p50_ms: Type.Number(),
        p95_ms: Type.Number(),
        p99_ms: Type.Number(),
        max_ms: Type.Number(),
        truncation_rate: Type.Number(),
        mean_response_bytes: Type.Integer(),
      }),
    ),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/observability/metrics' },
  handler: (ctx, input) => {
    const { calls, sessions } = ctx.services.observability;
    calls.flush();
    const window = input.window ?? '1h';
    const since = sessions.now() - WINDOWS[window];
    const rows = toolMetrics(ctx.db, since, input.tool, WINDOWS[window]);
    return { window, since, total_calls: rows.reduce((n, r) => n + r.calls, 0), rows };
  },
});
