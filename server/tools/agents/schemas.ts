import { Type } from '@sinclair/typebox';
import { EVENT_KINDS } from '../../hooks/normalize.ts';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const HookFileSchema = Type.Object({
  path: Type.String({ description: 'repository-relative when inside it' }),
  role: Type.Union([Type.Literal('edit'), Type.Literal('read')]),
});

export const HookEventSchema = Type.Object(
  {
    id: Type.Integer(),
    at: Type.Integer({ description: 'ms since the epoch' }),
    agent: Type.String({ description: 'the hook session id' }),
    client: Type.String(),
    event: Type.String({ description: 'hook_event_name as sent' }),
    kind: Type.Union(EVENT_KINDS.map((k) => Type.Literal(k))),
    phase: nullable(Type.Union([Type.Literal('pre'), Type.Literal('post'), Type.Literal('failed')])),
    tool: nullable(Type.String()),
    ok: nullable(Type.Boolean()),
    summary: Type.String(),
    files: Type.Array(HookFileSchema),
    detail: Type.Record(Type.String(), Type.Unknown()),
    machine: Type.String({ description: 'the machine whose hub the agent reported to' }),
    branch: nullable(Type.String({ description: "that hub's clone's branch (null outside a team)" })),
  },
  { $id: 'HookEvent' },
);

export const AgentSchema = Type.Object(
  {
    id: Type.String({ description: 'hook session id, or MCP session id when seen only over MCP' }),
    source: Type.Union([Type.Literal('hooks'), Type.Literal('mcp'), Type.Literal('hooks+mcp')]),
    client: nullable(Type.String()),
    model: nullable(Type.String()),
    cwd: nullable(Type.String()),
    lifecycle: Type.Union(['active', 'present', 'idle', 'ended'].map((l) => Type.Literal(l))),
    started_at: Type.Integer(),
    last_activity_at: Type.Integer(),
    activity: nullable(Type.String({ description: 'what it is doing now' })),
    last_tool: nullable(Type.String({ description: 'its last cos_* tool call' })),
    agent_session: nullable(Type.String({ description: 'the id its claims are recorded under' })),
    mcp_sessions: Type.Array(Type.String()),
    claimed_task: nullable(Type.Object({ id: Type.String(), title: Type.String() })),
    files: Type.Array(Type.Object({ path: Type.String(), at: Type.Integer(), times: Type.Integer() }), {
      description: 'files it edited, most recent first (10 at most)',
    }),
    files_total: Type.Integer(),
    end_reason: nullable(Type.String()),
    machine: Type.String({ description: 'the machine whose hub it reports to' }),
    branch: nullable(Type.String({ description: "that hub's clone's branch (null outside a team)" })),
  },
  { $id: 'Agent' },
);
