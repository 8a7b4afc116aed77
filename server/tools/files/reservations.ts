import { Type } from '@sinclair/typebox';
import { itemsWithinBudget } from '../board/schemas.ts';
import { defineTool } from '../define.ts';
import { ReservationSchema, reservationsOf } from './schemas.ts';

export const filesReservationsTool = defineTool({
  name: 'cos_files_reservations',
  title: 'Live file reservations',
  description: 'Live file reservations: who holds which paths, why, until when. Filter by agent or path.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      path: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 1000,
          description: 'or a glob',
        }),
      ),
      cursor: Type.Optional(Type.String({ maxLength: 40 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    entries: Type.Array(ReservationSchema),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/files/reservations', operationId: 'filesReservations' },
  handler(ctx, input) {
    const page = reservationsOf(ctx).list(input);
    // An agent's answer is cut to its budget here, so the cursor still points at the first one not shown.
    const fits = itemsWithinBudget(ctx, page.entries, { next_cursor: page.next_cursor });
    if (fits < page.entries.length) {
      const last = page.entries[fits - 1];
      const next_cursor = last ? `${last.created_at}:${last.id}` : page.next_cursor;
      return { entries: page.entries.slice(0, fits), next_cursor, meta: { next_cursor } };
    }
    return { ...page, meta: { next_cursor: page.next_cursor } };
  },
});
