import { Type } from '@sinclair/typebox';
import { SESSION_ID_PATTERN } from '../../memory/schemas.ts';
import { OutputStatusSchema } from '../../supervise/bundle.ts';
import { ROLE_ID_PATTERN } from '../../supervise/roles.ts';
import { defineTool } from '../define.ts';

export const RecordOutputInputSchema = Type.Object(
  {
    session_id: Type.String({
      pattern: SESSION_ID_PATTERN,
    }),
    role: Type.String({
      pattern: ROLE_ID_PATTERN,
      description: 'see cos_supervise_roles',
    }),
    output: Type.Record(Type.String(), Type.Unknown(), {}),
    status: OutputStatusSchema,
    latency_ms: Type.Integer({ minimum: 0, maximum: 86_400_000 }),
    discoveries: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
        maxItems: 50,
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
    "Records one role's output in a session's evidence bundle; with status ok it must fit the role's schema (cos_supervise_roles).",
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
