// POST /api/hooks/events: where agents' lifecycle hooks land (Claude Code's `type: "http"` hooks post
// here directly; its command hooks, Codex's and Gemini CLI's go through the hook script `cos connect`
// installs). Host, Origin and token are checked by the shared protection like every /api route. The 200
// body is the client's own hook output JSON, not an envelope: the client parses it as a decision.
import type { FastifyInstance } from 'fastify';
import { newErrorId } from '../errors.ts';
import { HOOK_CLIENTS, HookPayloadError } from '../hooks/normalize.ts';
import type { Hub } from '../hub.ts';
import { sendError } from './error-reply.ts';
import { ERROR_RESPONSES } from './schemas.ts';

/** A hook payload larger than this answers 413 `validation` (a Write's whole file rides in its input). */
export const HOOK_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export function registerHookRoutes(app: FastifyInstance, hub: Hub): void {
  app.post(
    '/api/hooks/events',
    {
      bodyLimit: Math.min(HOOK_BODY_LIMIT_BYTES, hub.config.bodyLimitBytes),
      schema: {
        operationId: 'hooksIngest',
        tags: ['hooks'],
        summary: 'Receive one lifecycle hook event from a coding agent',
        description:
          "The body is the JSON the client's hook sends (Claude Code, Codex, Gemini CLI: session_id, hook_event_name, and the event's fields). The answer is that client's hook output: `{}` for no decision, SessionStart context, or an edit conflict's warning or refusal. Unknown events are stored as such.",
        querystring: {
          type: 'object',
          properties: {
            client: {
              type: 'string',
              enum: [...HOOK_CLIENTS],
              description: 'which client sent it (the connect config sets it)',
            },
          },
          additionalProperties: false,
        },
        // No type here: a body that is not an object gets the ingest's own message, which says what a hook sends.
        body: { description: 'the hook input JSON (an object), as the client sends it' },
        response: {
          ...ERROR_RESPONSES,
          413: ERROR_RESPONSES[400],
          200: {
            description: "the client's hook output JSON",
            type: 'object',
            additionalProperties: true,
          },
        },
      },
    },
    async (request, reply) => {
      if (!hub.modules.isEnabled('observability')) return reply.send({});
      // Taking an event writes it to hub.db: not to one deleted, replaced or damaged under the hub.
      const refused = hub.status.writesRefused();
      if (refused) return sendError(reply, 'unavailable', refused, { retryable: false });
      try {
        const client = (request.query as { client?: string }).client;
        return reply.send(await hub.services.agents.ingest(request.body, client));
      } catch (err) {
        if (err instanceof HookPayloadError) return sendError(reply, 'validation', err.message);
        const errorId = newErrorId();
        request.log.error({ err, errorId, scope: 'hooks' }, 'a hook event could not be taken');
        // The agent goes on (a non-2xx answer is a non-blocking error for every client).
        return sendError(
          reply,
          'internal',
          `the hook event could not be taken; the hub log has error id ${errorId}`,
        );
      }
    },
  );
}
