import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { defineTool } from '../define.ts';
import {
  ClaimReservationSchema,
  claimReserveInput,
  reserveForClaim,
  reservePaths,
} from '../files/with-claim.ts';
import {
  AgentSessionSchema,
  actorOf,
  BypassWipSchema,
  boardOf,
  ExpectedVersionSchema,
  ReasonSchema,
  StatusSchema,
  TaskChangeSchema,
  TaskIdSchema,
} from './schemas.ts';

export const taskMoveTool = defineTool({
  name: 'cos_task_move',
  title: 'Move a task',
  description:
    'Moves a task to another column when the board allows the transition and the WIP cap holds; in_progress assigns it to agent_session.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      id: TaskIdSchema,
      to: StatusSchema,
      expected_version: Type.Optional(ExpectedVersionSchema),
      reason: Type.Optional(ReasonSchema),
      bypass_wip: Type.Optional(BypassWipSchema),
      bypass_gates: Type.Optional(
        Type.Boolean({
          description: 'skip the quality gates; needs a reason',
        }),
      ),
      agent_session: Type.Optional(AgentSessionSchema),
      ...claimReserveInput,
    },
    { additionalProperties: false },
  ),
  output: Type.Composite([TaskChangeSchema, Type.Object({ reservation: ClaimReservationSchema })]),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/board/tasks/:id/move', operationId: 'boardTaskMove' },
  async handler(ctx, input) {
    const session = input.agent_session;
    if (input.reserve !== undefined && (input.to !== 'in_progress' || session === undefined))
      throw new ToolError(
        'validation',
        'reserve goes with a move to in_progress that names agent_session (the claimant the files are reserved for)',
      );
    const reserve = reservePaths(ctx, input.reserve);
    const moved = await boardOf(ctx).move(
      input.id,
      input.to,
      {
        expected_version: input.expected_version,
        reason: input.reason,
        bypass_wip: input.bypass_wip,
        bypass_gates: input.bypass_gates,
      },
      actorOf(ctx, session),
    );
    if (!reserve || !session) return moved;
    return {
      ...moved,
      reservation: await reserveForClaim(ctx, session, moved.task, reserve, input.reserve_reason),
    };
  },
});
