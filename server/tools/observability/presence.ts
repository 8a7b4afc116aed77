import { Type } from '@sinclair/typebox';
import type { SessionView } from '../../observability/sessions.ts';
import type { ToolContext } from '../context.ts';
import { defineTool } from '../define.ts';
import { LifecycleSchema, SessionSchema } from './schemas.ts';

const AgentSchema = Type.Object({
  session_id: Type.String(),
  client: Type.Union([Type.String(), Type.Null()], { description: 'client name and version' }),
  lifecycle: LifecycleSchema,
  last_tool: Type.Union([Type.String(), Type.Null()]),
  last_activity_at: Type.Integer(),
  agent_session: Type.Union([Type.String(), Type.Null()]),
  claimed_task: Type.Union([Type.Object({ id: Type.String(), title: Type.String() }), Type.Null()], {
    description: 'the in-progress task this agent session holds, when the board knows one',
  }),
});

type ClaimedTaskLookup = (agentSession: string) => { id: string; title: string } | null;

/** The board's in-progress task for an agent session, when the board is there and enabled to ask. */
function claimedTaskLookup(ctx: ToolContext): ClaimedTaskLookup {
  const board = (ctx.services as Partial<typeof ctx.services>).board;
  return board && ctx.modules.isEnabled('tasks') ? board.claimedBy : () => null;
}

function agentOf(s: SessionView, claimed: ClaimedTaskLookup) {
  return {
    session_id: s.id,
    client: s.client_name ? `${s.client_name}${s.client_version ? ` ${s.client_version}` : ''}` : null,
    lifecycle: s.lifecycle,
    last_tool: s.last_tool,
    last_activity_at: s.last_activity_at,
    agent_session: s.agent_session,
    claimed_task: s.agent_session ? claimed(s.agent_session) : null,
  };
}

export const presenceQueryTool = defineTool({
  name: 'cos_presence_query',
  title: 'Who is connected',
  description:
    'Agents connected now: client, lifecycle, last tool and claimed task. Check it before taking work others may hold.',
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
    const { sessions } = ctx.services.observability;
    const claimed = claimedTaskLookup(ctx);
    const list = sessions.list().filter((s) => input.include_ended || s.lifecycle !== 'ended');
    return { entries: list.map((s) => agentOf(s, claimed)), counts: sessions.counts() };
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
  description: 'A compact summary for the hub header: how many agents are active, present and idle, and who.',
  module: 'observability',
  layer: 'metrics',
  mcp: false,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    counts: Type.Record(LifecycleSchema, Type.Integer()),
    agents: Type.Array(
      Type.Object({
        session_id: Type.String(),
        client: Type.Union([Type.String(), Type.Null()]),
        lifecycle: LifecycleSchema,
        last_tool: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/presence/now' },
  handler: (ctx) => {
    const { sessions } = ctx.services.observability;
    const open = sessions.list(0, 0).filter((s) => s.lifecycle !== 'ended');
    return {
      counts: sessions.counts(),
      agents: open.slice(0, 20).map((s) => ({
        session_id: s.id,
        client: s.client_name,
        lifecycle: s.lifecycle,
        last_tool: s.last_tool,
      })),
    };
  },
});
