// One low-level MCP Server per session (no singletons): initialize, ping and logging/setLevel. tools/list
// and tools/call never reach it: tools-call.ts answers them first (the listing kept ready, the call
// through hub.answer with the 32 KB agent budget). The low-level Server is used because
// McpServer.registerTool only takes zod schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { HUB_VERSION } from '../version.ts';

/**
 * Said once per session instead of in every tool's schemas: the envelope, its error branch and `meta`
 * (each tool's outputSchema outlines only the fields of its success `data` besides `meta`).
 */
export const INSTRUCTIONS = [
  'cos hub: a task board, a code knowledge graph, memory and docs search for this repository.',
  'Every tool answers {ok:true, data:{…, meta}} or, with isError, {ok:false, error:{category, retryable, message}} (category: validation, not_found, permission, unavailable, transient, internal or module_disabled). Retry only when retryable is true; the message says what to change. Arguments are checked by the hub, which names any it refuses (unknown keys, lengths, formats).',
  'data.meta: tokens_estimated; truncated, true when the agent budget (32,000 characters) cut the answer, with truncated_<list>_from/_to per list cut; next_cursor or next_offset to fetch the rest (pass it back as cursor or offset); resolved_from, how a name became a graph node (direct, path_prefix, exact_unique, or fuzzy_fts5: verify it).',
  'Graph tools take a node as a uid (code:function:src/a.ts::run), a repo path (src/a.ts, docs/), path::qualified.name or a name (run, Store.add). Task ids are TASK-12 or 12. Task writes take agent_session (your session id, recorded) and expected_version (from cos_task_show: the write is refused if the task changed since); bypass_wip needs a reason.',
  'A smaller tool surface: connect to /mcp?tools=core, board or graph.',
].join('\n');

export function createMcpServer(): Server {
  return new Server(
    { name: 'cos-hub', title: 'cos hub', version: HUB_VERSION },
    { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: INSTRUCTIONS },
  );
}
