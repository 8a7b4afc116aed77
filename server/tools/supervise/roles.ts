import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';

export const rolesTool = defineTool({
  name: 'cos_supervise_roles',
  title: 'Supervision roles',
  description: "The roles an evidence bundle has a slot for, with the JSON Schema of each one's output.",
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
