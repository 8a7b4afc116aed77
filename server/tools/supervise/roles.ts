import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';

export const rolesTool = defineTool({
  name: 'cos_supervise_roles',
  title: 'Supervision roles',
  description:
    "Every role an evidence bundle has a slot for, built-in or registered in roles.json, with its output's JSON Schema.",
  module: 'supervise',
  layer: 'audit',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    roles: Type.Array(
      Type.Object({
        id: Type.String(),
        builtin: Type.Boolean(),
        description: Type.String(),
        output_schema: Type.Unknown({ description: 'JSON Schema of the output recorded with status ok' }),
      }),
    ),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/roles' },
  handler: (ctx) => ({ roles: ctx.services.supervise.roles() }),
});
