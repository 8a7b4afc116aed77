import { Type } from '@sinclair/typebox';

export const LifecycleSchema = Type.Union(
  [Type.Literal('active'), Type.Literal('present'), Type.Literal('idle'), Type.Literal('ended')],
  {
    description:
      'active: a request in the last 30 s; present: in the last 5 min; idle: longer, still connected; ended',
  },
);

export const SessionSchema = Type.Object(
  {
    id: Type.String({ description: 'the Mcp-Session-Id' }),
    client_name: Type.Union([Type.String(), Type.Null()]),
    client_version: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.Integer({ description: 'ms since the epoch' }),
    last_activity_at: Type.Integer(),
    last_tool: Type.Union([Type.String(), Type.Null()]),
    agent_session: Type.Union([Type.String(), Type.Null()], {
      description: 'the agent_session its calls named, if any',
    }),
    calls: Type.Integer(),
    lifecycle: LifecycleSchema,
    ended_at: Type.Union([Type.Integer(), Type.Null()]),
    end_reason: Type.Union([Type.String(), Type.Null()]),
    machine: Type.Union([Type.String(), Type.Null()], {
      description: "another machine's session (null: this hub's)",
    }),
    branch: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'McpSession' },
);

export const WindowSchema = Type.Union(
  [
    Type.Literal('5m'),
    Type.Literal('15m'),
    Type.Literal('1h'),
    Type.Literal('6h'),
    Type.Literal('24h'),
    Type.Literal('7d'),
  ],
  { default: '1h' },
);
