import { Type } from '@sinclair/typebox';
import { readFlows, retro } from '../../board/flow.ts';
import { ToolError } from '../../errors.ts';
import { defineTool } from '../define.ts';
import { InstantSchema, instant } from './daily.ts';
import { boardOf } from './schemas.ts';

const Spread = Type.Object({
  count: Type.Integer(),
  median_hours: Type.Union([Type.Number(), Type.Null()]),
  p85_hours: Type.Union([Type.Number(), Type.Null()]),
});
const Times = Type.Object({
  all: Spread,
  by_kind: Type.Array(Type.Intersect([Type.Object({ kind: Type.String() }), Spread])),
  by_swimlane: Type.Array(Type.Intersect([Type.Object({ swimlane: Type.String() }), Spread])),
});

const MAX_DAYS = 366;

export const taskRetroTool = defineTool({
  name: 'cos_task_retro',
  title: 'The retro',
  description:
    'Flow over weeks (default 4): completions per week, cycle and lead time (median, p85) by kind and swimlane, daily counts per status, hours blocked.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      from: Type.Optional(InstantSchema('window start (default: weeks before to)')),
      to: Type.Optional(InstantSchema('window end (default: now)')),
      weeks: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 52,
          default: 4,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    from: Type.String(),
    to: Type.String(),
    throughput: Type.Array(
      Type.Object({ week: Type.String(), starts: Type.String(), completed: Type.Integer() }),
    ),
    cycle_time: Times,
    lead_time: Times,
    completions: Type.Array(
      Type.Object({
        id: Type.String(),
        kind: Type.String(),
        swimlane: Type.Union([Type.String(), Type.Null()]),
        completed: Type.String(),
        cycle_hours: Type.Union([Type.Number(), Type.Null()]),
        lead_hours: Type.Union([Type.Number(), Type.Null()]),
      }),
    ),
    flow: Type.Array(
      Type.Object({
        day: Type.String(),
        wip: Type.Integer({ description: 'in_progress + testing' }),
        counts: Type.Record(Type.String(), Type.Integer()),
      }),
    ),
    blocked: Type.Object({
      total_hours: Type.Number(),
      tasks: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), hours: Type.Number() })),
    }),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/retro', operationId: 'boardRetro' },
  handler(ctx, input) {
    boardOf(ctx);
    const to = instant(input.to, 'to') ?? Date.now();
    const from = instant(input.from, 'from') ?? to - (input.weeks ?? 4) * 7 * 86_400_000;
    if (from >= to) throw new ToolError('validation', 'from must be before to');
    if (to - from > MAX_DAYS * 86_400_000)
      throw new ToolError(
        'validation',
        `the window is at most ${MAX_DAYS} days; pass a later from or an earlier to`,
      );
    return retro(readFlows(ctx.db), { from, to });
  },
});
