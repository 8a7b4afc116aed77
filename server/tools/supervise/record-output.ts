import { Type } from '@sinclair/typebox';
import { SESSION_ID_PATTERN } from '../../memory/schemas.ts';
import { OutputStatusSchema } from '../../supervise/bundle.ts';
import { ROLE_ID_PATTERN } from '../../supervise/roles.ts';
import { defineTool } from '../define.ts';

export const RecordOutputInputSchema = Type.Object(
  {
    session_id: Type.String({
      pattern: SESSION_ID_PATTERN,
      description: 'The supervised run: letters, digits, _ - . (not first), up to 128 characters',
    }),
    role: Type.String({
      pattern: ROLE_ID_PATTERN,
      description: 'researcher, analyst, architect, implementer, reviewer, tester, or a role from roles.json',
    }),
    output: Type.Record(Type.String(), Type.Unknown(), {
      description: "The role's output; with status ok it must match the role's schema (GET /api/roles)",
    }),
    status: OutputStatusSchema,
    latency_ms: Type.Integer({ minimum: 0, maximum: 86_400_000, description: 'How long the role ran' }),
    discoveries: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
        maxItems: 50,
        description: 'Things learned on the way, added to the bundle-wide discoveries',
      }),
    ),
    backtrack: Type.Optional(
      Type.Object(
        {
          reason: Type.String({ minLength: 1, maxLength: 2000 }),
          to_role: Type.Optional(
            Type.String({ pattern: ROLE_ID_PATTERN, description: 'The role to go back to' }),
          ),
        },
        {
          additionalProperties: false,
          description: 'Set when this output sends the run back to an earlier step',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const recordOutputTool = defineTool({
  name: 'cos_supervise_record_output',
  title: "Record a role's output",
  description:
    "Persist one role's output into the session's evidence bundle. Outputs with status ok must fit the role's " +
    'schema (the answer names the field that does not); fail and timeout are recorded as degraded. Concurrent ' +
    'calls for one session are applied one after another; none is lost.',
  module: 'supervise',
  layer: 'audit',
  input: RecordOutputInputSchema,
  output: Type.Object({
    session_id: Type.String(),
    role: Type.String(),
    seq: Type.Integer({ description: 'Position of this output in the session' }),
    slot_size: Type.Integer({ description: "Outputs in this role's slot now" }),
    counts: Type.Object({
      outputs: Type.Integer(),
      backtracks: Type.Integer(),
      discoveries: Type.Integer(),
      degraded_formulas: Type.Integer(),
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/supervise/sessions/:session_id/outputs' },
  handler: (ctx, input) => ctx.services.supervise.recordOutput(input),
});
