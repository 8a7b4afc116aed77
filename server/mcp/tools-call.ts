// tools/call, answered by the hub itself rather than through the SDK's protocol layer. It is the one
// request agents send thousands of times, and the protocol layer's generic path cost more than the
// call: three zod parses of each message (two of them failing type guards), an AbortController per
// request and a chain of promises. This path checks the request's shape itself, runs the tool through
// hub.call, and keeps the protocol's promises: progress notifications when the request carries a
// progressToken, and no answer once the client has cancelled (notifications/cancelled). Every other
// method (initialize, ping, logging/setLevel…) still goes through the SDK's Server, except tools/list,
// which every session asks for first: it is answered here too, with the listing's JSON kept ready
// (listing.ts) for the session's tool profile.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { fail } from '../../shared/envelope/index.ts';
import type { Hub } from '../hub.ts';
import type { CallerInfo } from '../tools/context.ts';
import type { AnyTool } from '../tools/define.ts';
import { profilesWith, profileUrl, type ToolProfile } from '../tools/profiles.ts';
import type { ToolListings } from './listing.ts';
import type { Message, NodeStreamableTransport } from './transport.ts';
import { toCallResult } from './wire.ts';

/** An AbortController made only when a tool asks for its signal: most never do, and one costs µs. */
class LazyAbort {
  private controller: AbortController | undefined;
  private reason: unknown;
  aborted = false;

  readonly signal = (): AbortSignal => {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  };

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

export class ToolCalls {
  private readonly inFlight = new Map<RequestId, LazyAbort>();
  /** Who calls, once the session and its client are known (they do not change afterwards). */
  private knownCaller: CallerInfo | undefined;

  constructor(
    private readonly hub: Hub,
    private readonly server: Server,
    private readonly transport: Pick<NodeStreamableTransport, 'deliver' | 'sessionId'>,
    private readonly listings: ToolListings,
    /** The tools this session lists and may call (`/mcp?tools=…`). */
    private readonly profile: ToolProfile,
  ) {}

  /**
   * Takes a message before the protocol layer: answers tools/call (true), and notes cancellations of
   * the calls it runs (false: the protocol layer sees them too, for the requests it serves).
   */
  readonly intercept = (message: Message): boolean => {
    if (message.method === 'notifications/cancelled') {
      const params = message.params as { requestId?: RequestId; reason?: unknown } | undefined;
      if (params?.requestId !== undefined) this.inFlight.get(params.requestId)?.abort(params.reason);
      return false;
    }
    if (!('id' in message)) return false;
    const id = message.id as RequestId;
    if (message.method === 'tools/list') {
      try {
        this.send({
          jsonrpc: '2.0',
          id,
          result: this.listings.result(this.profile),
        } as JSONRPCMessage);
      } catch (err) {
        this.failed(id, err);
      }
      return true;
    }
    if (message.method !== 'tools/call') return false;
    try {
      this.call(id, message.params);
    } catch (err) {
      this.failed(id, err);
    }
    return true;
  };

  /** hub.answer never throws or rejects; anything here is a bug in this file. Answer rather than hang. */
  private failed(id: RequestId, err: unknown): void {
    this.hub.logger.error({ err, scope: 'mcp' }, 'tools/call failed outside the tool');
    this.send({
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.InternalError, message: 'Internal error' },
    } as JSONRPCMessage);
  }

  private send(message: JSONRPCMessage, options?: TransportSendOptions): void {
    try {
      this.transport.deliver(message, options);
    } catch (err) {
      // The client went away mid-write: nothing to answer to.
      this.hub.logger.warn({ err, scope: 'mcp' }, 'an MCP answer could not be written');
    }
  }

  /** Runs the call; a synchronous tool is answered before this returns, with no promise made. */
  private call(id: RequestId, params: unknown): undefined {
    if (!isObject(params) || typeof params.name !== 'string') {
      return this.error(id, 'tools/call needs params.name, the name of a tool (a string)');
    }
    const meta = params._meta;
    const progressToken = isObject(meta) ? meta.progressToken : undefined;
    if (
      progressToken !== undefined &&
      typeof progressToken !== 'string' &&
      typeof progressToken !== 'number'
    ) {
      return this.error(id, 'params._meta.progressToken must be a string or a number');
    }
    const { name, arguments: args } = params;
    const tool = this.hub.registry.forMcp(name);
    if (args !== undefined && !isObject(args)) {
      // Agents are promised an envelope for bad arguments, never a JSON-RPC error.
      return this.answer(
        id,
        toCallResult(fail('validation', `${name} takes an object of named arguments, not ${describe(args)}`)),
      );
    }
    if (!tool) {
      return this.answer(
        id,
        toCallResult(
          fail(
            'not_found',
            `there is no tool named "${name}"; call tools/list for the tools this hub serves`,
          ),
        ),
      );
    }
    if (!this.profile.has(tool)) return this.answer(id, toCallResult(this.outsideProfile(tool)));
    const abort = new LazyAbort();
    const answer = this.hub.answer(tool, args ?? {}, {
      caller: this.caller(),
      applyBudget: true,
      signal: abort.signal,
      progress:
        progressToken === undefined
          ? undefined
          : (report) => {
              if (abort.aborted) return;
              this.send(
                { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, ...report } },
                { relatedRequestId: id },
              );
            },
    });
    if (!(answer instanceof Promise))
      return this.answer(id, toCallResult(answer.envelope, answer.text, answer.bytes));
    // Only a call still running can be cancelled: notifications/cancelled finds it here.
    this.inFlight.set(id, abort);
    answer.then(
      ({ envelope, text, bytes }) => {
        if (this.inFlight.get(id) === abort) this.inFlight.delete(id);
        // A cancelled request gets no answer (the client has stopped waiting for it).
        if (!abort.aborted) this.answer(id, toCallResult(envelope, text, bytes));
      },
      (err: unknown) => {
        if (this.inFlight.get(id) === abort) this.inFlight.delete(id);
        this.failed(id, err);
      },
    );
    return undefined;
  }

  /** not_found for a tool the session's profile leaves out, naming the profiles that have it. */
  private outsideProfile(tool: AnyTool) {
    const others = profilesWith(tool);
    const smallest = others[0] ?? 'all';
    return fail(
      'not_found',
      `${tool.name} is not in this session's tool profile "${this.profile.name}"; it is in ${others
        .map((p) => `"${p}"`)
        .join(', ')}: connect to ${profileUrl('/mcp', smallest)} to use it`,
    );
  }

  private caller(): CallerInfo {
    if (this.knownCaller) return this.knownCaller;
    const sessionId = this.transport.sessionId;
    const client = this.server.getClientVersion();
    const caller: CallerInfo = {
      transport: 'mcp',
      ...(sessionId ? { mcpSessionId: sessionId } : {}),
      ...(client ? { clientName: client.name, clientVersion: client.version } : {}),
    };
    if (sessionId && client) this.knownCaller = caller;
    return caller;
  }

  private answer(id: RequestId, result: ReturnType<typeof toCallResult>): undefined {
    this.send({ jsonrpc: '2.0', id, result } as JSONRPCMessage);
  }

  private error(id: RequestId, message: string): undefined {
    this.send({
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${message}` },
    } as JSONRPCMessage);
  }
}
