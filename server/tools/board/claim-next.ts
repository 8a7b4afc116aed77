import { Type } from '@sinclair/typebox';
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
  ReasonSchema,
  TaskViewSchema,
} from './schemas.ts';

export const taskClaimNextTool = defineTool({
  name: 'cos_task_claim_next',
  title: 'Claim the next task',
  description:
    'Claims the best ready task whose dependencies are done and moves it to in_progress for you, atomically; claimed is false when none is.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      agent_session: Type.Optional(AgentSessionSchema),
      swimlane: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      bypass_wip: Type.Optional(BypassWipSchema),
      reason: Type.Optional(ReasonSchema),
      ...claimReserveInput,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    claimed: Type.Boolean(),
    task: Type.Union([TaskViewSchema, Type.Null()]),
    message: Type.String(),
    reservation: ClaimReservationSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/board/claim-next', operationId: 'boardClaimNext' },
  async handler(ctx, input) {
    // Over MCP the transport session identifies the agent when it does not name itself.
    const session = input.agent_session ?? ctx.caller.mcpSessionId;
    const reserve = reservePaths(ctx, input.reserve);
    // Tasks whose claimants are gone go back to the queue first, so this claim can take them; a task
    // whose claimant is alive stays in progress and is never handed out. A context built with the board
    // alone (its unit tests) has no agents to ask; the claim then goes on without the sweep.
    await ctx.services.agents?.sweepClaims();
    const claim = await boardOf(ctx).claimNext(actorOf(ctx, session), {
      swimlane: input.swimlane,
      bypass_wip: input.bypass_wip,
      reason: input.reason,
    });
    if (!reserve || !claim.claimed || !claim.task || !session) return claim;
    return {
      ...claim,
      reservation: await reserveForClaim(ctx, session, claim.task, reserve, input.reserve_reason),
    };
  },
});
