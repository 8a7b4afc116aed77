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
    title: Type.String({ minLength: 1, maxLength: 300, description: 'What was learned, in a few words' }),
    narrative: Type.Optional(
      Type.String({ maxLength: 20_000, description: 'The story: context, what happened, why it matters' }),
    ),
    facts: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
        maxItems: 50,
        description: 'Short verifiable statements',
      }),
    ),
    concepts: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 60 }), {
        maxItems: 30,
        description: 'Tags that a later search might use (lower-cased)',
      }),
    ),
    type: MemoryTypeSchema,
    confidence: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'How sure the recorder is, 0 to 1 (default 0.7)' }),
    ),
    impact: Type.Optional(ImpactSchema),
    files: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
        maxItems: 100,
        description: 'Repository-relative paths this concerns',
      }),
    ),
    task_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'The task this came from' }),
    ),
    session_id: Type.Optional(
      Type.String({
        pattern: SESSION_ID_PATTERN,
        description:
          'Agent session recording it; defaults to the MCP session. Exact duplicates within one session merge',
      }),
    ),
  },
  { additionalProperties: false },
);

export const observationRecordTool = defineTool({
  name: 'cos_observation_record',
  title: 'Record an observation',
  description:
    'Save something learned (a pattern, decision, pitfall, fact or preference) so later tasks can find it with ' +
    'cos_search. Recording the same text again in the same session merges into the first record ' +
    '(merged: true) and keeps the higher confidence and impact.',
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
