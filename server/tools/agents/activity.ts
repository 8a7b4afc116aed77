import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import type { EventKind } from '../../hooks/normalize.ts';
import { defineTool } from '../define.ts';
import { HookEventSchema } from './schemas.ts';

const KINDS = [
  'edit',
  'command',
  'prompt',
  'read',
  'search',
  'web',
  'mcp',
  'tool',
  'conflict',
  'claim',
  'reservation',
  'refresh',
  'session',
  'other',
] as const;
const KIND_FILTER: Record<(typeof KINDS)[number], EventKind[]> = {
  edit: ['edit'],
  command: ['command'],
  prompt: ['prompt'],
  read: ['read'],
  search: ['search'],
  web: ['web'],
  mcp: ['mcp'],
  tool: ['tool'],
  conflict: ['conflict'],
  claim: ['claim'],
  reservation: ['reservation'],
  refresh: ['refresh'],
  session: ['session_start', 'session_end', 'stop', 'subagent', 'compact', 'notification'],
  other: ['other', 'unknown', 'permission'],
};

export const agentActivityTool = defineTool({
  name: 'cos_agent_activity',
  title: 'What agents did',
  description:
    'What agents did per their hooks, newest first; filter by agent, since_minutes, file (who touched it), kind, failed and machine.',
  module: 'observability',
  layer: 'metrics',
  input: Type.Object(
    {
      agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      file: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
      kind: Type.Optional(Type.Union(KINDS.map((k) => Type.Literal(k)))),
      failed: Type.Optional(Type.Boolean()),
      machine: Type.Optional(
        Type.String({ minLength: 1, maxLength: 200, description: 'only agents on this machine' }),
      ),
      since_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
      cursor: Type.Optional(Type.String({ maxLength: 20 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    entries: Type.Array(HookEventSchema),
    touched: Type.Array(
      Type.Object({
        path: Type.String(),
        agent: Type.String(),
        role: Type.String(),
        last_at: Type.Integer(),
        times: Type.Integer(),
      }),
      { description: 'with file: each agent that touched it' },
    ),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/agents/activity' },
  handler: (ctx, input) => {
    const { agents } = ctx.services;
    let beforeId: number | undefined;
    if (input.cursor !== undefined) {
      beforeId = Number(input.cursor);
      if (!/^\d{1,15}$/.test(input.cursor) || beforeId < 1)
        throw new ToolError('validation', 'cursor must be the next_cursor of a previous page');
    }
    const since =
      input.since_minutes === undefined
        ? undefined
        : ctx.services.observability.sessions.now() - input.since_minutes * 60_000;
    // An MCP session or agent_session names the hook agent it is linked to.
    const agent =
      input.agent === undefined
        ? undefined
        : (agents
            .agents({ includeEnded: true })
            .find((a) => a.id === input.agent || a.mcp_sessions.includes(input.agent!))?.id ?? input.agent);
    const path =
      input.file === undefined
        ? undefined
        : agents.paths.stored(
            input.file.startsWith('/')
              ? input.file
              : `${agents.paths.root}/${input.file.replace(/^\.\//, '')}`,
          );
    const limit = input.limit ?? 50;
    const entries = agents.store.events({
      agent,
      since,
      path,
      kinds: input.kind ? KIND_FILTER[input.kind] : undefined,
      failed: input.failed,
      machine: input.machine,
      beforeId,
      limit: limit + 1,
    });
    const more = entries.length > limit;
    const page = more ? entries.slice(0, limit) : entries;
    const next_cursor = more ? String(page[page.length - 1]!.id) : null;
    const touched =
      path === undefined ? [] : agents.store.touches({ path, since, ...(agent ? { agent } : {}), limit: 50 });
    return { entries: page, touched, next_cursor, meta: { next_cursor } };
  },
});
