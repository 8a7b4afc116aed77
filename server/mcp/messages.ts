// What an incoming JSON-RPC message must be before anything acts on it, and the error a malformed one
// deserves. The SDK's protocol layer drops what its schemas do not recognise (an id of null, an object,
// a float or true; params that are not an object; a key JSON-RPC does not define) without answering, so
// the client waits forever; and it answers a method's bad params with -32603 and a dumped zod error.
// Every request is checked here first: a malformed request gets -32600 (id null when its id cannot be
// used), bad params -32602 naming the field; only well-formed messages go on.
import {
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type RequestId,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

type Message = Record<string, unknown>;

/** The schemas of the methods the SDK's Server answers for the hub (tools/call checks its own params). */
interface Parser {
  safeParse(value: unknown): { success: boolean; error?: unknown };
}
const SERVED = new Map<string, Parser>([
  ['initialize', InitializeRequestSchema as Parser],
  ['ping', PingRequestSchema as Parser],
  ['tools/list', ListToolsRequestSchema as Parser],
  ['logging/setLevel', SetLevelRequestSchema as Parser],
]);

const MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

const isObject = (v: unknown): v is Message => v !== null && typeof v === 'object' && !Array.isArray(v);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return 'a fraction';
    return Number.isSafeInteger(value) ? 'a number' : 'an integer beyond 2^53';
  }
  return `${typeof value === 'object' ? 'an' : 'a'} ${typeof value}`;
}

export const isRequestId = (id: unknown): id is RequestId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

function refusal(id: RequestId | null, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
}

/** The first problem zod found, as `params.level: Invalid option: …`, on one line. */
function firstIssue(error: unknown): string {
  const issue = (error as { issues?: { path?: PropertyKey[]; message?: string }[] }).issues?.[0];
  if (!issue) return 'params do not match the method';
  const path = (issue.path ?? []).map(String).join('.');
  return `${path || 'params'}: ${issue.message ?? 'invalid'}`.replace(/\s+/g, ' ');
}

/**
 * The error answer `raw` deserves, or undefined when it is a well-formed message to pass on. A
 * malformed notification (no id) gets no answer, as JSON-RPC says, and undefined: the protocol layer
 * ignores what it does not recognise.
 */
export function refuse(raw: unknown): JSONRPCMessage | undefined {
  if (!isObject(raw))
    return refusal(
      null,
      ErrorCode.InvalidRequest,
      `Invalid Request: a message is an object, not ${describe(raw)}`,
    );
  const hasId = 'id' in raw;
  const id = hasId && isRequestId(raw.id) ? raw.id : null;
  if (raw.jsonrpc !== '2.0')
    return refusal(id, ErrorCode.InvalidRequest, 'Invalid Request: "jsonrpc" must be "2.0"');
  let unknown: string | undefined;
  for (const key in raw) if (!MEMBERS.has(key)) unknown ??= key;
  if (unknown !== undefined)
    return refusal(
      id,
      ErrorCode.InvalidRequest,
      `Invalid Request: "${unknown.slice(0, 40)}" is not a JSON-RPC member`,
    );
  if (!('method' in raw)) {
    // A response to a request the hub sent: it needs an id and exactly one of result or error.
    if (hasId && isRequestId(raw.id) && 'result' in raw !== 'error' in raw) return undefined;
    return refusal(
      id,
      ErrorCode.InvalidRequest,
      'Invalid Request: a message needs a "method" (or is a response with an id and a result or an error)',
    );
  }
  if (typeof raw.method !== 'string' || raw.method === '')
    return refusal(id, ErrorCode.InvalidRequest, 'Invalid Request: "method" must be a non-empty string');
  if ('result' in raw || 'error' in raw)
    return refusal(id, ErrorCode.InvalidRequest, 'Invalid Request: a request has no "result" or "error"');
  if (!hasId) return undefined;
  if (id === null)
    return refusal(
      null,
      ErrorCode.InvalidRequest,
      `Invalid Request: "id" must be a string or an integer, not ${describe(raw.id)}`,
    );
  if ('params' in raw && !isObject(raw.params))
    return refusal(
      id,
      ErrorCode.InvalidParams,
      `Invalid params: "params" must be an object, not ${describe(raw.params)}`,
    );
  // tools/call is the hot path: tools-call.ts checks its params itself, without a zod parse.
  if (raw.method === 'tools/call') return undefined;
  // Any other method: its own schema when the hub serves it, else the SDK's (its _meta), so an unknown
  // method reaches the protocol layer, which answers -32601.
  const parsed = (SERVED.get(raw.method) ?? (JSONRPCRequestSchema as Parser)).safeParse(raw);
  if (!parsed.success)
    return refusal(
      id,
      ErrorCode.InvalidParams,
      `Invalid params for ${raw.method.slice(0, 60)}: ${firstIssue(parsed.error)}`,
    );
  return undefined;
}
