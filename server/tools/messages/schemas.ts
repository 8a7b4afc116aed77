// What the message tools take and answer, shared by send, inbox, ack and threads; and who is sending.
import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { HUMAN, MAX_BODY_BYTES, MAX_SUBJECT_CHARS } from '../../messages/port.ts';
import type { ToolContext } from '../context.ts';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

export const AgentSessionSchema = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'yours, as SessionStart named it',
});
export const MessageIdSchema = Type.String({ minLength: 1, maxLength: 64 });
export const BodySchema = Type.String({
  minLength: 1,
  maxLength: MAX_BODY_BYTES,
  description: `at most ${MAX_BODY_BYTES} bytes; secrets are redacted`,
});
export const SubjectSchema = Type.String({ maxLength: MAX_SUBJECT_CHARS });

const MessageFields = {
  id: Type.String(),
  thread_id: Type.String({ description: 'the thread: its first message’s id (its own for a new thread)' }),
  from: Type.String({ description: 'the sender: an agent session, or "human"' }),
  from_machine: Type.String({ description: 'the machine whose hub took it' }),
  to: Type.String({ description: 'as the sender addressed it: a session, task:TASK-7, all or human' }),
  subject: nullable(Type.String()),
  body: Type.String(),
  urgent: Type.Boolean(),
  created_at: Time,
};

export const RecipientSchema = Type.Object({
  agent: Type.String({ description: 'an agent session, or "human"' }),
  delivered_at: nullable(Time),
  acked_at: nullable(Time),
});

export const SentMessageSchema = Type.Object(
  {
    ...MessageFields,
    recipients: Type.Array(RecipientSchema, {
      description: 'who it went to (to "all": every live agent but the sender when it was sent)',
    }),
  },
  { $id: 'SentMessage' },
);

export const InboxMessageSchema = Type.Object(
  {
    ...MessageFields,
    delivered_at: nullable(Time),
    acked_at: nullable(Time),
  },
  { $id: 'InboxMessage' },
);

export const ThreadSchema = Type.Object(
  {
    thread_id: Type.String(),
    subject: nullable(Type.String()),
    last_at: Time,
    count: Type.Integer({ minimum: 1 }),
    messages: Type.Array(SentMessageSchema, {
      description: 'its latest messages (50 at most), oldest first',
    }),
  },
  { $id: 'MessageThread' },
);

/**
 * Whose messages a call means. An agent names itself (agent_session; over MCP its transport session
 * stands in when it does not); "human", the people on the hub's page, is taken only from REST, so an
 * agent cannot read or ack the page's messages by naming it.
 */
export function callerOf(ctx: ToolContext, agentSession: string | undefined): string {
  if (agentSession === HUMAN && ctx.caller.transport === 'mcp')
    throw new ToolError(
      'validation',
      'agent_session "human" is the people on the hub page, and only the page speaks for them: pass your own agent_session (SessionStart names it)',
    );
  const who = agentSession ?? (ctx.caller.transport === 'mcp' ? ctx.caller.mcpSessionId : HUMAN);
  if (who === undefined)
    throw new ToolError('validation', 'agent_session is needed: pass the one SessionStart named for you');
  return who;
}
