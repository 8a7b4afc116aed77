import { Type } from '@sinclair/typebox';
import { AgentSessionSchema } from '../board/schemas.ts';
import { defineTool } from '../define.ts';
import { PathListSchema, reservationsOf } from './schemas.ts';

export const filesReleaseTool = defineTool({
  name: 'cos_files_release',
  title: 'Release reserved files',
  description: 'Releases your reservation by id, or some of its paths.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      agent_session: Type.Optional(AgentSessionSchema),
      id: Type.Optional(Type.String({ pattern: '^R-[0-9a-f]{10}$' })),
      paths: Type.Optional(PathListSchema('as reserved')),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    released: Type.Array(
      Type.Object({
        id: Type.String(),
        holder: Type.String(),
        holder_label: Type.String(),
        paths: Type.Array(Type.String(), { description: 'the paths released' }),
        ended: Type.Boolean({ description: 'false: it goes on holding its other paths' }),
      }),
    ),
    not_held: Type.Array(Type.String(), { description: 'paths asked for that were not released' }),
    message: Type.String(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/files/release', operationId: 'filesRelease' },
  handler(ctx, input) {
    // Over MCP the transport session identifies the agent when it does not name itself; a REST call
    // naming no agent is the hub's page, a person, who may release any reservation (it is recorded).
    const agent = input.agent_session ?? ctx.caller.mcpSessionId;
    const person = ctx.caller.transport !== 'mcp' && agent === undefined;
    return reservationsOf(ctx).release({ ...input, agent_session: agent }, person);
  },
});
