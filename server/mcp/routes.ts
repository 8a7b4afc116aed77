// POST, GET and DELETE /mcp: Streamable HTTP. Fastify parses the body (so its size limit and JSON errors
// answer in the hub's error shape), then the request is handed to the session's SDK transport.
import { ErrorCode, isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Hub } from '../hub.ts';
import { projectOfRequest } from '../projects/hubs.ts';
import { PROFILE_NAMES, profileNamed } from '../tools/profiles.ts';
import { refuse } from './messages.ts';
import { McpSessions } from './sessions.ts';
import type { NodeStreamableTransport } from './transport.ts';

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): void {
  reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function initializeRefusal(body: unknown): JSONRPCMessage | undefined {
  const m = body as { method?: unknown } | null;
  return m !== null && typeof m === 'object' && m.method === 'initialize' ? refuse(m) : undefined;
}

/** A body Fastify could not take answers in JSON-RPC here, as an MCP client expects. */
function bodyError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const answer = bodyRefusal(error);
  // Anything else is the app's to answer (its handler logs it under an error id).
  if (!answer) throw error;
  jsonRpcError(reply, answer[0], answer[1], answer[2]);
}

function bodyRefusal(error: FastifyError): [number, number, string] | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return [400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON'];
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return [413, ErrorCode.InvalidRequest, 'Invalid Request: the body is larger than the hub accepts'];
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return [415, ErrorCode.InvalidRequest, 'Invalid Request: send the body as application/json'];
  }
  if (error instanceof SyntaxError)
    return [400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON'];
  return undefined;
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

export async function registerMcpRoutes(app: FastifyInstance, hub: Hub): Promise<McpSessions> {
  // Each project has its own sessions (a session id from one project is unknown in every other), each
  // under the same cap, and each project's cos_health counts its own.
  const sessionsFor = (h: Hub): McpSessions => {
    const made = new McpSessions(h, hub.config.mcpSessionIdleMs, hub.config.mcpMaxSessions);
    if (h.services.status) h.services.status.mcpSessions = () => made.counts();
    return made;
  };
  const sessions = sessionsFor(hub);
  const byHub = new Map<Hub, McpSessions>([[hub, sessions]]);
  const sessionsOf = (request: FastifyRequest): McpSessions => {
    const project = projectOfRequest(request.raw);
    if (!project) return sessions;
    let found = byHub.get(project.hub);
    if (!found) {
      found = sessionsFor(project.hub);
      byHub.set(project.hub, found);
    }
    return found;
  };
  app.projects?.onClosing(async (project) => {
    const found = byHub.get(project.hub);
    byHub.delete(project.hub);
    await found?.closeAll();
  });
  app.addHook('onClose', async () => {
    await Promise.all([...byHub.values()].map((s) => s.closeAll()));
  });

  /** Hands the request to the session's transport, which writes the answer (JSON or an SSE stream). */
  const serve = (transport: NodeStreamableTransport, request: FastifyRequest, reply: FastifyReply): void => {
    reply.hijack();
    try {
      transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (err) {
      hub.logger.error({ err, scope: 'mcp' }, 'MCP transport failed on a request');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }),
        );
      } else if (!reply.raw.writableEnded) {
        reply.raw.end();
      }
    }
  };

  // Not async: a request of a known session is served without a promise, which a hot call notices.
  const handle = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    const sessions = sessionsOf(request);
    const header = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (session) serve(session.transport, request, reply);
      else
        jsonRpcError(
          reply,
          404,
          -32001,
          'Session not found: it ended or was evicted; initialize a new session',
        );
    } else if (request.method === 'POST' && isInitialize(request.body)) {
      // The tool profile is chosen once, by the URL the session starts on (`/mcp?tools=core`).
      const asked = (request.query as { tools?: unknown } | undefined)?.tools;
      const profile = profileNamed(typeof asked === 'string' ? asked : undefined);
      if (!profile) {
        jsonRpcError(
          reply,
          400,
          -32602,
          `Invalid params: tools=${String(asked)} names no tool profile; use one of ${PROFILE_NAMES.join(', ')} (or leave it out for all)`,
        );
        return undefined;
      }
      return sessions.create(profile).then((transport) => serve(transport, request, reply));
    } else if (request.method === 'POST' && initializeRefusal(request.body)) {
      // An initialize whose params are wrong deserves to hear so, not "send initialize first".
      const refusal = initializeRefusal(request.body) as { id: unknown };
      reply
        .code(refusal.id === null ? 400 : 200)
        .type('application/json')
        .send(refusal);
    } else {
      jsonRpcError(
        reply,
        400,
        -32000,
        'Bad Request: send initialize first, then the Mcp-Session-Id header it returns',
      );
    }
    return undefined;
  };

  await app.register(async (mcp) => {
    mcp.setErrorHandler(bodyError);
    mcp.route({
      method: ['POST', 'GET', 'DELETE'],
      url: '/mcp',
      schema: { hide: true },
      // The transport writes (and compresses) its own answers: no per-request hooks of the plugin here.
      compress: false,
      decompress: false,
      handler: handle,
    });
  });
  return sessions;
}
