import { Type } from '@sinclair/typebox';
import { AgentSessionSchema, TaskIdSchema } from '../board/schemas.ts';
import { defineTool } from '../define.ts';
import {
  PathListSchema,
  RESERVE_PATHS_DESCRIPTION,
  ReservationReasonSchema,
  ReserveResultSchema,
  reservationsOf,
  TtlSecondsSchema,
} from './schemas.ts';

export const filesReserveTool = defineTool({
  name: 'cos_files_reserve',
  title: 'Reserve files before editing',
  description:
    "Reserves files before you edit them: others' edits there are warned or refused. granted false: conflicts say who holds what. Again: extends yours.",
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      agent_session: AgentSessionSchema,
      paths: PathListSchema(RESERVE_PATHS_DESCRIPTION),
      reason: ReservationReasonSchema,
      task_id: Type.Optional(TaskIdSchema),
      ttl_seconds: Type.Optional(TtlSecondsSchema),
      exclusive: Type.Optional(
        Type.Boolean({
          description: 'default true; false: shared',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: ReserveResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/files/reservations', operationId: 'filesReserve' },
  handler: (ctx, input) => reservationsOf(ctx).reserve({ ...input, client: ctx.caller.clientName }),
});
