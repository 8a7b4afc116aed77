import { Type } from '@sinclair/typebox';
import { andThen } from '../../memory/port.ts';
import { ForgetEntrySchema } from '../../memory/schemas.ts';
import { defineTool } from '../define.ts';

export const ForgetLogInputSchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        default: 0,
      }),
    ),
  },
  { additionalProperties: false },
);

export const forgetLogTool = defineTool({
  name: 'cos_forget_log',
  title: 'Forgotten observations',
  description: 'The audit trail of cos_forget, newest first: which record, why, who and when.',
  module: 'memory',
  layer: 'memory',
  input: ForgetLogInputSchema,
  output: Type.Object({ entries: Type.Array(ForgetEntrySchema) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/memory/forgotten' },
  handler: (ctx, input) =>
    andThen(ctx.services.memory.forgotten(input.limit ?? 50, input.offset ?? 0), (entries) => ({ entries })),
});
