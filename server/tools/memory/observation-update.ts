import { Type } from '@sinclair/typebox';
import { MemoryTypeNameSchema, ObservationSchema } from '../../memory/schemas.ts';
import { defineTool } from '../define.ts';
import { ObservationRecordInputSchema } from './observation-record.ts';

const p = ObservationRecordInputSchema.properties;

export const ObservationUpdateInputSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    title: Type.Optional(p.title),
    narrative: p.narrative,
    facts: p.facts,
    concepts: p.concepts,
    type: Type.Optional(MemoryTypeNameSchema),
    // No default here: an omitted confidence stays as it is.
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    impact: p.impact,
    files: p.files,
    task_id: Type.Optional(Type.Union([p.task_id, Type.Null()], {})),
  },
  { additionalProperties: false },
);

export const observationUpdateTool = defineTool({
  name: 'cos_observation_update',
  title: 'Correct an observation',
  description:
    "Changes an observation's fields (omitted ones stay), e.g. its confidence as evidence comes in, instead of recording a near-copy.",
  module: 'memory',
  layer: 'memory',
  input: ObservationUpdateInputSchema,
  output: ObservationSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'PATCH', path: '/api/memory/observations/:id' },
  handler: (ctx, { id, ...patch }) => ctx.services.memory.update(id, patch),
});
