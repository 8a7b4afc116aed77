import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { defineTool } from '../define.ts';
import { AgentSessionSchema, actorOf, boardOf, TaskIdSchema, TaskViewSchema } from './schemas.ts';

export const taskHandoffTool = defineTool({
  name: 'cos_task_handoff',
  title: 'Hand a task to another agent',
  description:
    'Hands your claimed task to another live agent in one step: the claim moves, the Work Log records it, your note reaches them.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      id: TaskIdSchema,
      to: Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'the agent session taking it over',
      }),
      note: Type.String({
        minLength: 1,
        maxLength: 4000,
        description: 'where the work stands',
      }),
      agent_session: Type.Optional(AgentSessionSchema),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    task: TaskViewSchema,
    from: Type.Union([Type.String(), Type.Null()], {
      description: 'the claimant it was taken from',
    }),
    to: Type.String(),
    reservations_moved: Type.Integer({
      description: 'file reservations tied to the task, now the new holder’s',
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/api/board/tasks/:id/handoff', operationId: 'boardTaskHandoff' },
  async handler(ctx, input) {
    // Over MCP the caller is an agent (its session when it does not name one); a REST call without one
    // is a person on the page, who may hand off any claimed task.
    const from =
      input.agent_session ?? (ctx.caller.transport === 'mcp' ? ctx.caller.mcpSessionId : undefined);
    if (ctx.caller.transport === 'mcp' && from === undefined)
      throw new ToolError('validation', 'name your agent_session: only the task’s claimant hands it off');
    const agents = ctx.services.agents;
    if (agents && !agents.isAlive(input.to))
      throw new ToolError(
        'not_found',
        `no live agent ${input.to}: hand the task to an agent that is here (cos_presence_now lists them)`,
      );
    const { task, previous } = await boardOf(ctx).handoff(
      input.id,
      from ?? null,
      input.to,
      input.note,
      actorOf(ctx, from),
    );
    // The task's file reservations go with it (their holder was the claimant).
    const moved =
      previous === null
        ? []
        : ((await ctx.services.reservations?.handOver(task.id, previous, input.to)) ?? []);
    // The note reaches the new holder as a message (in its context at its next hook). The handoff is made
    // by now: a message the hub cannot send (the sender's rate) leaves the note in the Work Log alone.
    let message_id: string | null = null;
    try {
      const sent = await ctx.services.messages?.send({
        from: from ?? 'human',
        to: input.to,
        subject: `${task.id} handed off to you`,
        body: `You now hold ${task.id} "${task.title}" (handed off by ${from ?? 'a person'}). ${input.note.trim()}`,
      });
      message_id = sent?.id ?? null;
    } catch (err) {
      ctx.logger.warn({ err, task: task.id }, 'the handoff note could not be sent as a message');
    }
    return { task, from: previous, to: input.to, reservations_moved: moved.length, message_id };
  },
});
