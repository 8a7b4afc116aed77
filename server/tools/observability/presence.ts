import { Type } from '@sinclair/typebox';
import { countAgents } from '../../agents/presence.ts';
import { AgentSchema } from '../agents/schemas.ts';
import { defineTool } from '../define.ts';
import { LifecycleSchema, SessionSchema } from './schemas.ts';

export const presenceQueryTool = defineTool({
  name: 'cos_presence_query',
  title: 'Who is connected',
  description:
    'Agents at work here, from their hooks and MCP sessions: client, model, lifecycle, current action, files edited, claimed task. Check it before taking work.',
  module: 'observability',
  layer: 'metrics',
  input: Type.Object(
    {
      include_ended: Type.Optional(Type.Boolean({})),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    entries: Type.Array(AgentSchema),
    counts: Type.Record(LifecycleSchema, Type.Integer()),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/presence/agents' },
  handler: (ctx, input) => {
    const entries = ctx.services.agents.agents({ includeEnded: input.include_ended === true });
    return { entries, counts: countAgents(entries.filter((a) => a.lifecycle !== 'ended')) };
  },
});

export const sessionsActiveTool = defineTool({
  name: 'cos_sessions_active',
  title: 'MCP sessions',
  description: 'Open MCP sessions with their lifecycle, and those that ended in the last hour.',
  module: 'observability',
  layer: 'metrics',
  mcp: false,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ sessions: Type.Array(SessionSchema) }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/sessions/active' },
  handler: (ctx) => ({ sessions: ctx.services.observability.sessions.list() }),
});

export const presenceNowTool = defineTool({
  name: 'cos_presence_now',
  title: 'Presence summary',
  description:
    'A compact summary for the hub header: how many agents are active, present and idle, who, and on which machines (a team).',
  module: 'observability',
  layer: 'metrics',
  mcp: false,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    counts: Type.Record(LifecycleSchema, Type.Integer()),
    agents: Type.Array(
      Type.Object({
        id: Type.String(),
        client: Type.Union([Type.String(), Type.Null()]),
        lifecycle: LifecycleSchema,
        activity: Type.Union([Type.String(), Type.Null()]),
        machine: Type.String({ description: 'the machine whose hub it reports to' }),
      }),
    ),
    machines: Type.Array(Type.String(), {
      description: 'the machines the agents here work on, sorted (more than one only in a team)',
    }),
  }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/presence/now' },
  handler: (ctx) => {
    const open = ctx.services.agents.agents();
    return {
      counts: countAgents(open),
      agents: open.slice(0, 20).map((a) => ({
        id: a.id,
        client: a.client,
        lifecycle: a.lifecycle,
        activity: a.activity,
        machine: a.machine,
      })),
      machines: [...new Set(open.map((a) => a.machine))].sort(),
    };
  },
});
