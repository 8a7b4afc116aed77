import { Type } from '@sinclair/typebox';
import { ObservationSchema } from '../../memory/schemas.ts';
import { defineTool } from '../define.ts';

export const DetailsInputSchema = Type.Object(
  { id: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

export const detailsTool = defineTool({
  name: 'cos_details',
  title: 'One observation in full',
  description: 'One observation in full: narrative, facts, files, task, counters.',
  module: 'memory',
  layer: 'memory',
  input: DetailsInputSchema,
  output: ObservationSchema,
  // Not read-only in the strict sense: a read bumps the access counter the ranking uses.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'GET', path: '/api/memory/observations/:id' },
  handler: (ctx, input) => ctx.services.memory.details(input.id),
});
