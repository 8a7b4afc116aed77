// POST, GET and DELETE /mcp: Streamable HTTP. Fastify parses the body (so its size limit and JSON errors
// answer in the hub's error shape), then the request is handed to the session's SDK transport.
import { ErrorCode, isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Hub } from '../hub.ts';
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
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return jsonRpcError(reply, 400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return jsonRpcError(
        reply,
        413,
        ErrorCode.InvalidRequest,
        `Invalid Request: the body is larger than the hub accepts`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return jsonRpcError(
        reply,
        415,
        ErrorCode.InvalidRequest,
        'Invalid Request: send the body as application/json',
      );
  }
  if (error instanceof SyntaxError)
    return jsonRpcError(reply, 400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
  // Anything else is the app's to answer (its handler logs it under an error id).
  throw error;
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

export async function registerMcpRoutes(app: FastifyInstance, hub: Hub): Promise<McpSessions> {
  const sessions = new McpSessions(hub, hub.config.mcpSessionIdleMs, hub.config.mcpMaxSessions);
  if (hub.services.status) hub.services.status.mcpSessions = () => sessions.counts();
  app.addHook('onClose', async () => sessions.closeAll());

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
      return sessions.create().then((transport) => serve(transport, request, reply));
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
    mcp.route({ method: ['POST', 'GET', 'DELETE'], url: '/mcp', schema: { hide: true }, handler: handle });
  });
  return sessions;
}
