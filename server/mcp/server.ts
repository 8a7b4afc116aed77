// One low-level MCP Server per session (no singletons): initialize, ping and logging/setLevel. tools/list
// and tools/call never reach it: tools-call.ts answers them first (the listing kept ready, the call
// through hub.answer with the 32 KB agent budget). The low-level Server is used because
// McpServer.registerTool only takes zod schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { HUB_VERSION } from '../version.ts';

/**
 * Said once per session instead of in every tool's schemas: the envelope, its error branch and `meta`
 * (each tool's outputSchema describes only its success `data`, and `meta` as a bare object).
 */
export const INSTRUCTIONS = [
  'cos hub: a task board, a code knowledge graph, memory and docs search for this repository.',
  'Every tool answers {ok:true, data:{…, meta}} or, with isError, {ok:false, error:{category, retryable, message}}; categories: validation, not_found, permission, unavailable, transient, internal, module_disabled. Retry only when retryable is true; the message says what to change.',
  'data.meta: tokens_estimated; truncated (true when the 32 KB agent budget cut the answer, with truncated_<list>_from/_to per list cut); next_cursor or next_offset to fetch the rest; resolved_from (how a name became a graph node: direct, path_prefix, or fuzzy_fts5, which you should verify).',
  'Graph tools take a node as a uid (code:function:src/a.ts::run), a repo path (src/a.ts, docs/), path::qualified.name, or a bare name (run, Store.add); cos_graph_resolve shows which node a name means.',
  'A smaller tool surface: connect to /mcp?tools=core, board or graph.',
].join('\n');

export function createMcpServer(): Server {
  return new Server(
    { name: 'cos-hub', title: 'cos hub', version: HUB_VERSION },
    { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: INSTRUCTIONS },
  );
}
