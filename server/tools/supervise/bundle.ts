import { Type } from '@sinclair/typebox';
import { SESSION_ID_PATTERN } from '../../memory/schemas.ts';
import { BundleSchema } from '../../supervise/bundle.ts';
import { ROLE_ID_PATTERN } from '../../supervise/roles.ts';
import { defineTool } from '../define.ts';

export const BundleInputSchema = Type.Object(
  {
    session_id: Type.String({ pattern: SESSION_ID_PATTERN }),
    role: Type.Optional(Type.String({ pattern: ROLE_ID_PATTERN })),
    max_per_role: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 50,
      }),
    ),
  },
  { additionalProperties: false },
);

export const bundleTool = defineTool({
  name: 'cos_supervise_bundle',
  title: 'Read an evidence bundle',
  description: "A session's evidence bundle: each role's outputs, backtracks, discoveries and degraded runs.",
  module: 'supervise',
  layer: 'audit',
  input: BundleInputSchema,
  output: Type.Intersect([
    BundleSchema,
    Type.Object({
      meta: Type.Object({
        slots_cut: Type.Record(Type.String(), Type.Object({ from: Type.Integer(), to: Type.Integer() })),
      }),
    }),
  ]),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/supervise/sessions/:session_id/bundle' },
  handler: async (ctx, input) => {
    const bundle = await ctx.services.supervise.bundle(input.session_id);
    const max = input.max_per_role ?? 50;
    const slots: typeof bundle.slots = {};
    const cut: Record<string, { from: number; to: number }> = {};
    for (const [role, entries] of Object.entries(bundle.slots)) {
      if (input.role !== undefined && role !== input.role) continue;
      slots[role] = entries.slice(-max);
      if (entries.length > max) cut[role] = { from: entries.length, to: max };
    }
    return { ...bundle, slots, meta: { slots_cut: cut } };
  },
});
