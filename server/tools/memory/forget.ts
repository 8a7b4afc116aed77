import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';

export const ForgetInputSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const forgetTool = defineTool({
  name: 'cos_forget',
  title: 'Forget an observation',
  description:
    'Deletes a wrong or outdated observation; the deletion is audited (cos_forget_log), its text is not kept.',
  module: 'memory',
  layer: 'memory',
  input: ForgetInputSchema,
  output: Type.Object({ id: Type.Integer(), audit_id: Type.Integer() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  http: { method: 'DELETE', path: '/api/memory/observations/:id' },
  handler: (ctx, input) =>
    ctx.services.memory.forget(input.id, input.reason ?? '', ctx.caller.mcpSessionId ?? ctx.caller.transport),
});
