import { Type } from '@sinclair/typebox';
import { SESSION_ID_PATTERN } from '../../memory/schemas.ts';
import { SlotEntrySchema } from '../../supervise/bundle.ts';
import { ROLE_ID_PATTERN } from '../../supervise/roles.ts';
import { defineTool } from '../define.ts';

export const RoleOutputsInputSchema = Type.Object(
  {
    role: Type.String({ pattern: ROLE_ID_PATTERN }),
    session_id: Type.Optional(Type.String({ pattern: SESSION_ID_PATTERN })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);

export const roleOutputsTool = defineTool({
  name: 'cos_supervise_role_outputs',
  title: "A role's recorded outputs",
  description: 'The newest outputs one role recorded, across recent bundles or in one session.',
  module: 'supervise',
  layer: 'audit',
  input: RoleOutputsInputSchema,
  output: Type.Object({
    role: Type.String(),
    // `entries`: a list key the envelope's budget trimmer knows how to cut (and announce in meta).
    entries: Type.Array(Type.Intersect([Type.Object({ session_id: Type.String() }), SlotEntrySchema])),
    meta: Type.Object({
      sessions_scanned: Type.Integer(),
      unreadable: Type.Integer({ description: 'Bundles skipped as corrupt (moved aside; see the log)' }),
    }),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/roles/:role/outputs' },
  handler: async (ctx, input) => {
    const { outputs, sessions_scanned, unreadable } = await ctx.services.supervise.roleOutputs(
      input.role,
      input,
    );
    return { role: input.role, entries: outputs, meta: { sessions_scanned, unreadable } };
  },
});
