// One low-level MCP Server per session (no singletons): initialize, ping, logging/setLevel and tools/list
// (the registry's enabled tools). tools/call never reaches it: tools-call.ts answers it first, through
// hub.call with the 32 KB agent budget. The low-level Server is used because McpServer.registerTool only
// takes zod schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { envelopeSchemaFor } from '../../shared/envelope/index.ts';
import type { Hub } from '../hub.ts';
import type { AnyTool } from '../tools/define.ts';
import { HUB_VERSION } from '../version.ts';
import { toMcpJsonSchema } from './json-schema.ts';

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
  // tools/call is answered before the protocol layer, by tools-call.ts.

  return server;
}
