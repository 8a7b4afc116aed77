import { Type } from '@sinclair/typebox';
import {
  ImpactSchema,
  MemoryTypeSchema,
  ObservationSchema,
  SESSION_ID_PATTERN,
} from '../../memory/schemas.ts';
import { defineTool } from '../define.ts';

export const ObservationRecordInputSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300 }),
    narrative: Type.Optional(Type.String({ maxLength: 20_000 })),
    facts: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
        maxItems: 50,
      }),
    ),
    concepts: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 60 }), {
        maxItems: 30,
      }),
    ),
    type: MemoryTypeSchema,
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.7 })),
    impact: Type.Optional(ImpactSchema),
    files: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
        maxItems: 100,
      }),
    ),
    task_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    session_id: Type.Optional(
      Type.String({
        pattern: SESSION_ID_PATTERN,
        description: 'default: this MCP session',
      }),
    ),
  },
  { additionalProperties: false },
);

export const observationRecordTool = defineTool({
  name: 'cos_observation_record',
  title: 'Record an observation',
  description:
    'Saves something learned for later tasks to find with cos_search; a repeat in one session merges.',
  module: 'memory',
  layer: 'memory',
  input: ObservationRecordInputSchema,
  output: Type.Object({
    observation: ObservationSchema,
    merged: Type.Boolean({ description: 'True when an exact duplicate from this session absorbed it' }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'POST', path: '/api/memory/observations' },
  handler: (ctx, input) =>
    ctx.services.memory.record({ ...input, session_id: input.session_id ?? ctx.caller.mcpSessionId ?? '' }),
});
