import { Type } from '@sinclair/typebox';
import { daily, readFlows } from '../../board/flow.ts';
import { ToolError } from '../../errors.ts';
import { defineTool } from '../define.ts';
import { boardOf } from './schemas.ts';

/** A date (`2026-11-02`) or a time with its offset (`2026-11-02T09:00:00Z`). */
export const InstantSchema = (description: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2}))?$',
    maxLength: 40,
    description,
  });

export function instant(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(/T/.test(value) ? value : `${value}T00:00:00Z`);
  if (Number.isNaN(t))
    throw new ToolError(
      'validation',
      `${name} "${value}" is not a date; pass e.g. 2026-11-02 or 2026-11-02T09:00:00Z`,
    );
  return t;
}

const Item = Type.Object({
  id: Type.String(),
  title: Type.String(),
  at: Type.String(),
  who: Type.Union([Type.String(), Type.Null()]),
  machine: Type.Union([Type.String(), Type.Null()], {
    description: 'the machine the move was made on (in a team; null otherwise)',
  }),
  from: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
});

export const taskDailyTool = defineTool({
  name: 'cos_task_daily',
  title: 'The daily',
  description:
    'What moved on the board in the last day (or since a time): completed, started and blocked, with who, and tasks stuck in progress.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      since: Type.Optional(InstantSchema('start of the window (default: hours ago)')),
      hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, default: 24 })),
      stuck_hours: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 8760,
          default: 24,
          description: 'idle hours that make a task stuck',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    since: Type.String(),
    until: Type.String(),
    completed: Type.Array(Item),
    started: Type.Array(Item),
    blocked: Type.Array(Item),
    stuck: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        who: Type.Union([Type.String(), Type.Null()]),
        machine: Type.Union([Type.String(), Type.Null()], {
          description: 'the machine it was claimed on (in a team; null otherwise)',
        }),
        since: Type.Union([Type.String(), Type.Null()]),
        last_activity: Type.Union([Type.String(), Type.Null()]),
        idle_hours: Type.Number(),
      }),
    ),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/daily', operationId: 'boardDaily' },
  handler(ctx, input) {
    boardOf(ctx);
    const now = Date.now();
    const hours = input.hours ?? 24;
    const since = instant(input.since, 'since') ?? now - hours * 3_600_000;
    const until = input.since === undefined ? now : Math.min(now, since + hours * 3_600_000);
    return daily(readFlows(ctx.db), { since, until, stuckHours: input.stuck_hours ?? 24 });
  },
});
