import { Type } from '@sinclair/typebox';
import { errorCounts } from '../../observability/queries.ts';
import type { HubServices, ToolContext } from '../context.ts';
import { defineTool } from '../define.ts';
import { LifecycleSchema } from './schemas.ts';

const HOUR_MS = 3600_000;

export const hubSummaryTool = defineTool({
  name: 'cos_hub_summary',
  title: 'Hub summary',
  description:
    'Counts for the hub home page: tasks by status, graph size and freshness, connected agents, and errors in the last hour. Sections of disabled modules are null.',
  module: 'kernel',
  layer: 'health',
  mcp: false,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    tasks: Type.Union([
      Type.Object({
        by_status: Type.Record(Type.String(), Type.Integer()),
        total: Type.Integer(),
        parse_errors: Type.Integer(),
      }),
      Type.Null(),
    ]),
    graph: Type.Union([
      Type.Object({
        nodes: Type.Integer(),
        edges: Type.Integer(),
        files: Type.Integer(),
        generation: Type.Integer(),
        last_indexed_at: Type.Union([Type.Integer(), Type.Null()]),
        files_pending: Type.Integer(),
        indexing: Type.Boolean(),
        queued: Type.Optional(
          Type.Integer({
            description: "place in the hub's queue of full index passes, while this project's waits",
          }),
        ),
      }),
      Type.Null(),
    ]),
    agents: Type.Record(LifecycleSchema, Type.Integer()),
    errors_last_hour: Type.Integer({ description: 'failed_calls_last_hour + logged_errors_last_hour' }),
    failed_calls_last_hour: Type.Integer({ description: 'tool calls that answered an error envelope' }),
    logged_errors_last_hour: Type.Integer({ description: 'errors the hub logged' }),
  }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/hub/summary' },
  handler: (ctx) => {
    const { calls, sessions } = ctx.services.observability;
    const services = ctx.services as Partial<typeof ctx.services>;
    let tasks = null;
    if (services.board && ctx.modules.isEnabled('tasks')) {
      const byStatus: Record<string, number> = {};
      let total = 0;
      for (const { status, n } of services.board.store.counts({})) {
        byStatus[status] = n;
        total += n;
      }
      tasks = { by_status: byStatus, total, parse_errors: services.board.parseErrors().length };
    }
    const graph = graphSummary(ctx);
    calls.flush();
    const errors = errorCounts(ctx.db, sessions.now() - HOUR_MS);
    sessions.checkLifecycles();
    return {
      tasks,
      graph,
      agents: ctx.services.agents.counts(),
      errors_last_hour: errors.failed_calls + errors.logged_errors,
      failed_calls_last_hour: errors.failed_calls,
      logged_errors_last_hour: errors.logged_errors,
    };
  },
});

/** Graph size and freshness, read from the indexer's tables when the graph module is there. */
function graphSummary(ctx: ToolContext) {
  if (!ctx.modules.isEnabled('graph')) return null;
  const exists = ctx.db
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'graph_state'")
    .get();
  if (!exists) return null;
  const state = ctx.db
    .prepare('SELECT generation, last_indexed_at, files_pending, indexing FROM graph_state WHERE id = 1')
    .get() as
    | { generation: number; last_indexed_at: number | null; files_pending: number; indexing: number }
    | undefined;
  const queued = (ctx.services as Partial<HubServices>).graph?.freshness().queued;
  const count = (table: string) => ctx.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  return {
    nodes: count('graph_nodes'),
    edges: count('graph_edges'),
    files: count('graph_files'),
    generation: state?.generation ?? 0,
    last_indexed_at: state?.last_indexed_at ?? null,
    files_pending: state?.files_pending ?? 0,
    indexing: state?.indexing === 1,
    // Only the running service knows its place in the hub's queue of full passes.
    ...(queued === undefined ? {} : { queued }),
  };
}
