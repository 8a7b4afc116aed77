import { Type } from '@sinclair/typebox';
import { ObservationSchema } from '../../memory/schemas.ts';
import { defineTool } from '../define.ts';

export const DetailsInputSchema = Type.Object(
  { id: Type.Integer({ minimum: 1, description: 'Observation id from cos_search or cos_timeline' }) },
  { additionalProperties: false },
);

export const detailsTool = defineTool({
  name: 'cos_details',
  title: 'One observation in full',
  description:
    'The whole record: narrative, facts, files, task and counters. Each read raises the record in later rankings.',
  module: 'memory',
  layer: 'memory',
  input: DetailsInputSchema,
  output: ObservationSchema,
  // Not read-only in the strict sense: a read bumps the access counter the ranking uses.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'GET', path: '/api/memory/observations/:id' },
  handler: (ctx, input) => ctx.services.memory.details(input.id),
});
