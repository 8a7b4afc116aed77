// A claim and its files in one step (cos_task_claim_next and cos_task_move take `reserve`): the paths are
// checked before the claim (a path outside the repository claims nothing), reserved once the claim
// succeeded, tied to the task (so its completion ends them), for the claimant. The claim stands whatever
// the reservation answers: the paths another agent holds are left out and named in `not_granted`, the
// free ones reserved; a reservation that fails (the team database away) is said in its message.
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import type { ToolContext } from '../context.ts';
import { PathListSchema, ReservationReasonSchema, ReserveResultSchema, reservationsOf } from './schemas.ts';

export const claimReserveInput = {
  reserve: Type.Optional(PathListSchema('files to reserve with it (cos_files_reserve)')),
  reserve_reason: Type.Optional(ReservationReasonSchema),
};

export const ClaimReservationSchema = Type.Optional(ReserveResultSchema);

type ReserveResult = Static<typeof ReserveResultSchema>;

/** The paths normalised (validation before anything is claimed), or undefined when none were asked for. */
export function reservePaths(ctx: ToolContext, reserve: readonly string[] | undefined): string[] | undefined {
  return reserve === undefined ? undefined : reservationsOf(ctx).normalize(reserve);
}

export async function reserveForClaim(
  ctx: ToolContext,
  agentSession: string,
  task: { id: string; title: string },
  paths: readonly string[],
  reason: string | undefined,
): Promise<ReserveResult> {
  const reservations = reservationsOf(ctx);
  const ask = (p: readonly string[]) =>
    reservations.reserve({
      agent_session: agentSession,
      paths: p,
      reason: reason ?? `working on ${task.id}: ${task.title}`.slice(0, 500),
      task_id: task.id,
      client: ctx.caller.clientName,
    });
  try {
    const first = await ask(paths);
    if (first.granted) return first;
    const held = new Set(first.conflicts.map((c) => c.path));
    const free = paths.filter((p) => !held.has(p));
    const notGranted = paths.filter((p) => held.has(p));
    if (free.length === 0)
      return { ...first, not_granted: notGranted, message: `the claim stands; ${first.message}` };
    const second = await ask(free);
    return second.granted
      ? {
          ...second,
          conflicts: first.conflicts,
          not_granted: notGranted,
          message: `the claim stands; reserved ${free.join(', ')}, but not ${notGranted.join(', ')}: ${first.message}`,
        }
      : { ...second, not_granted: paths.slice(), message: `the claim stands; ${second.message}` };
  } catch (err) {
    // The task is claimed either way: a reservation that could not be made is said, not thrown.
    if (!(err instanceof ToolError)) throw err;
    return {
      granted: false,
      not_granted: paths.slice(),
      message: `the claim stands, but nothing was reserved (${err.category}): ${err.message}`,
    };
  }
}
