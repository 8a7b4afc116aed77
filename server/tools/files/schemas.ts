// Schemas of the file-reservation tools (server/coord/reservations.ts): one definition of a reservation
// and of a conflict, shared by cos_files_reserve, cos_files_release, cos_files_reservations and the
// claims that reserve with them (cos_task_claim_next, cos_task_move).
import { type TSchema, Type } from '@sinclair/typebox';
import {
  MAX_PATHS,
  MAX_REASON_CHARS,
  MAX_TTL_SECONDS,
  MIN_TTL_SECONDS,
  type ReservationsService,
} from '../../coord/reservations.ts';
import { ToolError } from '../../errors.ts';
import type { ToolContext } from '../context.ts';

const nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const PathListSchema = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
    minItems: 1,
    maxItems: MAX_PATHS,
    description,
  });

export const RESERVE_PATHS_DESCRIPTION = 'repo-relative paths or globs; a directory: src/auth/';

export const ReservationReasonSchema = Type.String({ minLength: 1, maxLength: MAX_REASON_CHARS });

export const TtlSecondsSchema = Type.Integer({
  minimum: MIN_TTL_SECONDS,
  maximum: MAX_TTL_SECONDS,
  description: 'default 3600',
});

export const ReservationSchema = Type.Object(
  {
    id: Type.String({ description: 'R-…: pass it to cos_files_release' }),
    holder: Type.String({ description: 'the agent_session that holds it' }),
    holder_client: nullable(Type.String()),
    holder_label: Type.String({ description: 'client and short id, with its machine when another one' }),
    machine: Type.String({ description: 'the machine whose hub granted it' }),
    paths: Type.Array(Type.String()),
    reason: Type.String(),
    task_id: nullable(Type.String()),
    exclusive: Type.Boolean({ description: 'false: shared, conflicts only with exclusive holds' }),
    created_at: Type.Integer({ description: 'ms since the epoch' }),
    expires_at: Type.Integer({ description: 'ms since the epoch' }),
  },
  { $id: 'Reservation' },
);

export const ReservationConflictSchema = Type.Object(
  {
    path: Type.String({ description: 'the path or glob you asked for' }),
    held: Type.String({ description: 'the path or glob of the reservation it overlaps' }),
    reservation_id: Type.String(),
    holder: Type.String({ description: 'its agent_session: cos_message_send to it to ask' }),
    holder_label: Type.String(),
    machine: Type.String(),
    reason: Type.String(),
    task_id: nullable(Type.String()),
    expires_at: Type.Integer({ description: 'ms since the epoch' }),
  },
  { $id: 'ReservationConflict' },
);

export const ReserveResultSchema = Type.Object(
  {
    granted: Type.Boolean({ description: 'false is an answer, not an error: conflicts says who holds what' }),
    extended: Type.Optional(
      Type.Boolean({ description: 'your own overlapping hold was extended and merged' }),
    ),
    reservation: Type.Optional(ReservationSchema),
    conflicts: Type.Optional(Type.Array(ReservationConflictSchema)),
    not_granted: Type.Optional(
      Type.Array(Type.String(), { description: 'with a claim: the paths others hold, left out' }),
    ),
    message: Type.String(),
  },
  { $id: 'ReserveResult' },
);

/** The reservations service, or `unavailable` when the hub runs without it (a board-only context). */
export function reservationsOf(ctx: ToolContext): ReservationsService {
  const r = (ctx.services as Partial<ToolContext['services']>).reservations;
  if (!r) throw new ToolError('unavailable', 'file reservations are not available in this hub');
  return r;
}
