// One low-level MCP Server per session (no singletons): tools/list from the registry's enabled tools,
// tools/call through runTool with the 32 KB agent budget. Tool errors are results with isError, never
// JSON-RPC errors. The low-level Server is used because McpServer.registerTool only takes zod schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { envelopeSchemaFor, fail } from '../../shared/envelope/index.ts';
import type { Hub } from '../hub.ts';
import type { AnyTool } from '../tools/define.ts';
import { HUB_VERSION } from '../version.ts';
import { toMcpJsonSchema } from './json-schema.ts';
import { toCallResult } from './wire.ts';

const listings = new WeakMap<AnyTool, Tool>();

function listingOf(tool: AnyTool): Tool {
  let listing = listings.get(tool);
  if (!listing) {
    listing = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toMcpJsonSchema(tool.input) as Tool['inputSchema'],
      // The whole envelope, success or error: clients validate structuredContent even when isError is set.
      // MCP requires an object schema at the top, so the union gets `type: 'object'` beside its anyOf.
      outputSchema: {
        type: 'object',
        ...toMcpJsonSchema(envelopeSchemaFor(tool.output)),
      } as Tool['outputSchema'],
      annotations: { title: tool.title, ...tool.annotations },
    };
    listings.set(tool, listing);
  }
  return listing;
}

/**
 * tools/call whose `arguments` is not an object (a list, a string, null): the SDK's schema would refuse
 * it with a JSON-RPC error; agents are promised a validation envelope instead.
 */
export function answerMalformedCall(request: Record<string, unknown>): JSONRPCMessage | undefined {
  if (request.method !== 'tools/call') return undefined;
  const params = request.params as { name?: unknown; arguments?: unknown } | undefined;
  const args = params?.arguments;
  if (args === undefined || (args !== null && typeof args === 'object' && !Array.isArray(args)))
    return undefined;
  const name = typeof params?.name === 'string' ? params.name : 'the tool';
  const envelope = fail(
    'validation',
    `${name} takes an object of named arguments, not ${args === null ? 'null' : Array.isArray(args) ? 'a list' : `a ${typeof args}`}`,
  );
  return {
    jsonrpc: '2.0',
    id: request.id as string | number,
    result: toCallResult(envelope),
  } as JSONRPCMessage;
}

export function createMcpServer(hub: Hub): Server {
  const server = new Server(
    { name: 'cos-hub', title: 'cos hub', version: HUB_VERSION },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions:
        'cos hub: a task board, a code knowledge graph, memory and docs search for this repository. Every tool answers with an envelope {ok, data{…, meta}} or {ok:false, error{category, retryable, message}}; retry only when retryable is true.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: hub.registry.enabled(hub.modules).map(listingOf),
  }));

  // Registered on the protocol layer, past Server's own tools/call wrapper: that wrapper parses the
  // request a second time and copies the result through zod, which would drop the envelope text the
  // transport splices (wire.ts). The protocol layer still parses the request against the schema.
  const onProtocol = Protocol.prototype.setRequestHandler as Server['setRequestHandler'];
  onProtocol.call(server, CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = hub.registry.forMcp(name);
    if (!tool) {
      return toCallResult(
        fail('not_found', `there is no tool named "${name}"; call tools/list for the tools this hub serves`),
      );
    }
    const progressToken = request.params._meta?.progressToken;
    const client = server.getClientVersion();
    const caller = {
      transport: 'mcp' as const,
      ...(extra.sessionId ? { mcpSessionId: extra.sessionId } : {}),
      ...(client ? { clientName: client.name, clientVersion: client.version } : {}),
    };
    const { envelope, text } = await hub.call(tool, args ?? {}, {
      caller,
      applyBudget: true,
      signal: extra.signal,
      ...(progressToken === undefined
        ? {}
        : {
            progress: (report) => {
              extra
                .sendNotification({ method: 'notifications/progress', params: { progressToken, ...report } })
                .catch(() => {});
            },
          }),
    });
    return toCallResult(envelope, text);
  });

  return server;
}
