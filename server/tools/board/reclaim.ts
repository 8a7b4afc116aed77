import { Type } from '@sinclair/typebox';
import { requireTaskId } from '../../board/ids.ts';
import { taskKey } from '../../board/model.ts';
import { defineTool } from '../define.ts';
import { TaskIdSchema } from './schemas.ts';

export const taskReclaimTool = defineTool({
  name: 'cos_task_reclaim',
  title: 'Reclaim dead claims',
  description:
    'Tasks in progress whose claimant is gone (ended, or silent past the grace); dry_run false returns them to the ready queue.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      dry_run: Type.Optional(Type.Boolean({ description: 'default true' })),
      task: Type.Optional(TaskIdSchema),
      grace_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    dry_run: Type.Boolean(),
    grace_minutes: Type.Integer(),
    entries: Type.Array(
      Type.Object({
        task: Type.Object({ id: Type.String(), title: Type.String() }),
        agent_session: Type.Union([Type.String(), Type.Null()]),
        state: Type.Union(['alive', 'ended', 'silent', 'unknown'].map((s) => Type.Literal(s))),
        last_seen_at: Type.Union([Type.Integer(), Type.Null()]),
        reason: Type.String(),
        reclaimable: Type.Boolean(),
        released: Type.Boolean(),
      }),
    ),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'POST', path: '/api/board/reclaim', operationId: 'boardReclaim' },
  handler: (ctx, input) =>
    ctx.services.agents.reclaim({
      dryRun: input.dry_run ?? true,
      ...(input.task ? { task: taskKey(requireTaskId(input.task)) } : {}),
      ...(input.grace_minutes ? { graceMinutes: input.grace_minutes } : {}),
    }),
});
