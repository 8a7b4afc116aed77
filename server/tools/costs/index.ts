// What agents cost (issue 30): tokens by kind and their cost per task, agent session, model, day,
// week or kind of task, read from the agents' own transcripts (server/costs/).
import { Type } from '@sinclair/typebox';
import { GROUP_BY } from '../../costs/report.ts';
import { ToolError } from '../../errors.ts';
import { InstantSchema, instant } from '../board/daily.ts';
import { type AnyTool, defineTool } from '../define.ts';

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

const TotalsFields = {
  input_tokens: Type.Integer({ description: 'billed at the input price (cache reads and writes apart)' }),
  output_tokens: Type.Integer(),
  cache_write_tokens: Type.Integer(),
  cache_read_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost_usd: Nullable(Type.Number({ description: 'USD of the priced tokens; null when none has a price' })),
  unpriced: Type.Union(
    [Type.Object({ tokens: Type.Integer(), models: Type.Array(Type.String()) }), Type.Null()],
    { description: 'tokens of models without a price: counted, never costed at 0' },
  ),
  records: Type.Integer({ description: 'model responses counted' }),
};

const GroupSchema = Type.Object({
  key: Type.Union([Type.String(), Type.Null()], {
    description: 'task id, agent session, model, day, week (its Monday) or kind; null: outside any task',
  }),
  label: Type.String(),
  ...TotalsFields,
  task: Type.Optional(
    Type.Union([
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        status: Type.String(),
        kind: Type.String(),
        over_budget: Type.Boolean(),
      }),
      Type.Null(),
    ]),
  ),
});

const PAGE = 100;

export const costReportTool = defineTool({
  name: 'cos_cost_report',
  title: 'What agents cost',
  description:
    "Tokens by kind and USD from the agents' transcripts for a task, agent session or time, grouped by task, agent, model, day, week or kind; usage between a claim and its completion or hand-off is the task's.",
  module: 'observability',
  layer: 'metrics',
  input: Type.Object(
    {
      task_id: Type.Optional(Type.String({ maxLength: 40, description: 'TASK-7: only what this task cost' })),
      agent_session: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      since: Type.Optional(InstantSchema('only usage from this time on')),
      group_by: Type.Optional(
        Type.Union(
          GROUP_BY.map((g) => Type.Literal(g)),
          { default: 'model' },
        ),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: PAGE })),
      cursor: Type.Optional(Type.String({ maxLength: 40 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    group_by: Type.String(),
    total: Type.Object(TotalsFields),
    groups: Type.Array(GroupSchema),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    completed_tasks: Type.Union([
      Type.Object({
        tasks: Type.Integer(),
        median_cost_usd: Nullable(Type.Number()),
        p85_cost_usd: Nullable(Type.Number()),
      }),
      Type.Null(),
    ]),
    budget: Type.Object({
      task_usd: Nullable(Type.Number({ description: 'board.json budget.task_usd' })),
      over: Type.Array(Type.String(), { description: 'tasks over it' }),
    }),
    prices: Type.Object({
      as_of: Type.String(),
      file: Type.Union([Type.String(), Type.Null()]),
      overrides: Type.Integer(),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/costs' },
  handler(ctx, input) {
    const offset = cursorOffset(input.cursor);
    const limit = input.limit ?? PAGE;
    const report = ctx.services.costs.report({
      task_id: input.task_id,
      agent_session: input.agent_session,
      since: instant(input.since, 'since'),
      group_by: input.group_by ?? 'model',
    });
    const groups = report.groups.slice(offset, offset + limit);
    const more = offset + limit < report.groups.length;
    const source = ctx.services.costs.prices.source();
    return {
      ...report,
      groups,
      next_cursor: more ? `o${offset + limit}` : null,
      prices: source,
      meta: {
        completeness: more ? ('partial' as const) : ('exact' as const),
        groups_total: report.groups.length,
      },
    };
  },
});

function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const m = /^o(\d{1,9})$/.exec(cursor);
  if (!m?.[1])
    throw new ToolError('validation', 'cursor is not one this tool gave: pass next_cursor as it came');
  return Number(m[1]);
}

export const costTools: AnyTool[] = [costReportTool];
