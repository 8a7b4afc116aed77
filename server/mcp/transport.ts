// Streamable HTTP (MCP 2025-11-25 and 2025-06-18) on Node's own request and response objects.
//
// Why not the SDK's StreamableHTTPServerTransport: it converts every Node request into a web-standard
// Request and every answer into a ReadableStream (through @hono/node-server), and answers each POST as
// an SSE stream written event by event. bench:mcp measured that path at 5–10× the CPU of a bare Fastify
// route for the same bytes. This transport keeps the SDK's protocol layer (the Server above it parses,
// dispatches and validates every message) and only moves bytes: a POST whose requests asked for
// progress gets an SSE stream so notifications can flow while the tool runs; every other POST gets
// one JSON answer written in one piece. GET opens the session's stream for server-initiated messages;
// DELETE ends the session. The official conformance suite runs against it in CI.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { accepted, COMPRESS_THRESHOLD, compressBody, type Encoding } from './compress.ts';
import { refuse } from './messages.ts';
import { messageBody, messageJson, readyGzip } from './wire.ts';

const MAX_BATCH = 100;
const KEEPALIVE_MS = 15_000;

export type Message = Record<string, unknown>;

const isRequest = (m: Message) => typeof m.method === 'string' && 'id' in m;
const isResponse = (m: Message) => !('method' in m) && 'id' in m && ('result' in m || 'error' in m);

interface PostStream {
  res: ServerResponse;
  sse: boolean;
  /** The requests' distinct ids in the order asked: a batch is answered in that order. */
  ids: RequestId[];
  answers: (JSONRPCMessage | undefined)[];
  /** Requests still unanswered. */
  left: number;
  /** The answers to the batch's malformed requests, sent with the others. */
  refused: JSONRPCMessage[];
  /** Whether the POST was a batch (answered with a list, even of one). */
  batch: boolean;
  /** The encodings the client accepts a JSON answer in (Accept-Encoding). */
  encodings: Set<string> | undefined;
  keepAlive?: NodeJS.Timeout;
}

export interface NodeTransportOptions {
  sessionIdGenerator: () => string;
  /**
   * Sees every incoming message before the protocol layer. Returning true takes it: the interceptor
   * answers a request through send(), and the protocol layer never sees it (the hub's tools/call).
   */
  intercept?: (message: Message) => boolean;
  onsessioninitialized?: (sessionId: string) => void;
  onsessionclosed?: (sessionId: string) => void;
}

/**
 * One JSON answer. With its length in the head, Node writes head and body in one piece; without it,
 * writeHead() commits to chunked encoding and every answer costs a five-part writev.
 */
function writeJson(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  extra: Record<string, string> | undefined,
  encoding?: Encoding,
): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  headers['content-length'] = String(length);
  if (encoding) {
    headers['content-encoding'] = encoding;
    headers.vary = 'accept-encoding';
  }
  // Assigned one by one: an object spread here is a runtime call per key, about 1 µs an answer.
  if (extra) for (const key of Object.keys(extra)) headers[key] = extra[key]!;
  res.writeHead(status, headers).end(body);
}

/**
 * A finished POST's body, compressed when it is over the threshold and the client accepts it: an answer
 * kept ready (tools/list) as gzip from its once-compressed head, any other with brotli or gzip.
 */
function encoded(stream: PostStream): [string | Buffer, Encoding | undefined] {
  const { encodings } = stream;
  const answers = stream.refused.length > 0 ? [...stream.answers, ...stream.refused] : stream.answers;
  const single = answers.length === 1 && !stream.batch ? answers[0] : undefined;
  if (single !== undefined && encodings?.has('gzip')) {
    const ready = readyGzip(single);
    if (ready) return [ready, 'gzip'];
  }
  const body = single !== undefined ? messageBody(single) : `[${answers.map(messageJson).join(',')}]`;
  const length = typeof body === 'string' ? body.length : body.length;
  const encoding = encodings?.has('br') ? 'br' : encodings?.has('gzip') ? 'gzip' : undefined;
  // A string's length in code units is at most its UTF-8 length: a first, cheap look at the threshold.
  if (!encoding || length < COMPRESS_THRESHOLD) return [body, undefined];
  return [compressBody(body, encoding), encoding];
}

function wantsProgress(m: Message): boolean {
  const params = m.params as { _meta?: { progressToken?: unknown } } | undefined;
  return params?._meta?.progressToken !== undefined;
}

export class NodeStreamableTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private initialized = false;
  private closed = false;
  private readonly byRequest = new Map<RequestId, PostStream>();
  private standalone: ServerResponse | undefined;
  private standaloneKeepAlive: NodeJS.Timeout | undefined;

  constructor(private readonly options: NodeTransportOptions) {}

  async start(): Promise<void> {}

  private headers(extra: Record<string, string>): Record<string, string> {
    return this.sessionId ? { ...extra, 'mcp-session-id': this.sessionId } : extra;
  }

  private error(
    res: ServerResponse,
    status: number,
    code: number,
    message: string,
    extra: Record<string, string> = {},
  ): undefined {
    this.onerror?.(new Error(message));
    const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
    writeJson(res, status, body, extra);
    return undefined;
  }

  /** Serves one HTTP request of this session; every answer is written by the time it returns or later. */
  handleRequest(req: IncomingMessage, res: ServerResponse, body: unknown): undefined {
    if (this.closed) return this.error(res, 404, -32001, 'Session not found');
    switch (req.method) {
      case 'POST':
        return this.post(req, res, body);
      case 'GET':
        return this.get(req, res);
      case 'DELETE':
        return this.delete(req, res);
      default:
        return this.error(res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
    }
  }

  private protocolVersionOk(req: IncomingMessage, res: ServerResponse): boolean {
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      this.error(
        res,
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
      return false;
    }
    return true;
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown): undefined {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.error(
        res,
        406,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    }
    const raw = Array.isArray(body) ? body : [body];
    if (raw.length === 0 || raw.length > MAX_BATCH) {
      return this.error(res, 400, -32600, `Invalid Request: send 1 to ${MAX_BATCH} JSON-RPC messages`);
    }
    // Each malformed message gets the error it deserves (messages.ts); the well-formed ones go on.
    const refused: JSONRPCMessage[] = [];
    const messages: Message[] = [];
    for (const m of raw) {
      const error = refuse(m);
      if (error) refused.push(error);
      else messages.push(m as Message);
    }
    if (messages.length === 0) return this.refuseAll(res, refused, Array.isArray(body));
    const initializing = messages.some((m) => m.method === 'initialize' && isRequest(m));
    if (initializing) {
      if (this.initialized)
        return this.error(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (raw.length > 1)
        return this.error(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.options.sessionIdGenerator();
      this.initialized = true;
      this.options.onsessioninitialized?.(this.sessionId);
    } else {
      if (!this.initialized) return this.error(res, 400, -32000, 'Bad Request: Server not initialized');
      if (!this.protocolVersionOk(req, res)) return;
    }

    const ids: RequestId[] = [];
    let sse = false;
    for (const m of messages) {
      if (!isRequest(m)) continue;
      const id = m.id as RequestId;
      if (!ids.includes(id)) ids.push(id);
      sse ||= wantsProgress(m);
    }
    if (ids.length === 0) {
      // Notifications and responses only: accepted, nothing to answer but the malformed requests.
      if (refused.length > 0)
        writeJson(res, 200, `[${refused.map(messageJson).join(',')}]`, this.headers({}));
      else res.writeHead(202, this.headers({})).end();
      for (const m of messages) if (!this.options.intercept?.(m)) this.onmessage?.(m as JSONRPCMessage);
      return;
    }
    const stream: PostStream = {
      res,
      sse,
      ids,
      answers: new Array(ids.length),
      left: ids.length,
      refused,
      batch: Array.isArray(body),
      encodings: sse ? undefined : accepted(req.headers['accept-encoding']),
    };
    for (const id of ids) this.byRequest.set(id, stream);
    if (stream.sse) {
      res.writeHead(
        200,
        this.headers({
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        }),
      );
      stream.keepAlive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
      stream.keepAlive.unref();
      for (const error of refused) res.write(`event: message\ndata: ${messageJson(error)}\n\n`);
    }
    for (const m of messages) {
      if (!this.options.intercept?.(m)) this.onmessage?.(m as JSONRPCMessage);
    }
    // A client that goes away before its answers are ready frees its stream; late answers are dropped.
    // (A tool that answered synchronously has already written and released it.)
    if (stream.left > 0) res.on('close', () => this.release(stream));
  }

  /**
   * Nothing in the POST could be acted on: each message's error (a list for a batch). 200 when every
   * error carries its request's id, as any other JSON-RPC error does; 400 when one cannot be matched.
   */
  private refuseAll(res: ServerResponse, refused: JSONRPCMessage[], batch: boolean): undefined {
    this.onerror?.(new Error('malformed JSON-RPC message'));
    const text = batch ? `[${refused.map(messageJson).join(',')}]` : messageJson(refused[0]!);
    const unmatched = refused.some((m) => (m as { id?: unknown }).id === null);
    writeJson(res, unmatched ? 400 : 200, text, this.headers({}));
    return undefined;
  }

  private release(stream: PostStream): void {
    if (stream.keepAlive) clearInterval(stream.keepAlive);
    for (const id of stream.ids) if (this.byRequest.get(id) === stream) this.byRequest.delete(id);
  }

  private get(req: IncomingMessage, res: ServerResponse): undefined {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      return this.error(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    }
    if (!this.initialized) return this.error(res, 400, -32000, 'Bad Request: Server not initialized');
    if (!this.protocolVersionOk(req, res)) return;
    if (this.standalone)
      return this.error(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    res.writeHead(
      200,
      this.headers({
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      }),
    );
    res.flushHeaders();
    this.standalone = res;
    this.standaloneKeepAlive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    this.standaloneKeepAlive.unref();
    res.once('close', () => {
      clearInterval(this.standaloneKeepAlive);
      if (this.standalone === res) this.standalone = undefined;
    });
  }

  private delete(req: IncomingMessage, res: ServerResponse): undefined {
    if (!this.initialized) return this.error(res, 400, -32000, 'Bad Request: Server not initialized');
    if (!this.protocolVersionOk(req, res)) return;
    if (this.sessionId) this.options.onsessionclosed?.(this.sessionId);
    res.writeHead(200).end();
    void this.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.deliver(message, options);
  }

  /** send() without its promise, for the hub's own tools/call path (tools-call.ts). */
  deliver(message: JSONRPCMessage, options?: TransportSendOptions): void {
    const m = message as unknown as Message;
    const response = isResponse(m);
    const requestId = response ? (m.id as RequestId) : options?.relatedRequestId;
    if (requestId === undefined) {
      // Server-initiated (list_changed, log messages): the session's GET stream, when one is open.
      if (this.standalone && !this.standalone.writableEnded)
        this.standalone.write(`event: message\ndata: ${messageJson(message)}\n\n`);
      return;
    }
    const stream = this.byRequest.get(requestId);
    if (!stream || stream.res.writableEnded || stream.res.destroyed) return;
    if (!response) {
      // A notification about a request (progress): only an SSE answer can carry it.
      if (stream.sse) stream.res.write(`event: message\ndata: ${messageJson(message)}\n\n`);
      return;
    }
    const index = stream.ids.indexOf(requestId);
    if (stream.answers[index] !== undefined) return;
    stream.answers[index] = message;
    stream.left--;
    if (stream.sse) stream.res.write(`event: message\ndata: ${messageJson(message)}\n\n`);
    if (stream.left > 0) return;
    if (stream.sse) {
      stream.res.end();
    } else {
      const [body, encoding] = encoded(stream);
      writeJson(
        stream.res,
        200,
        body,
        this.sessionId ? { 'mcp-session-id': this.sessionId } : undefined,
        encoding,
      );
    }
    this.release(stream);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.standaloneKeepAlive);
    if (this.standalone && !this.standalone.writableEnded) this.standalone.end();
    this.standalone = undefined;
    for (const stream of new Set(this.byRequest.values())) {
      this.release(stream);
      if (!stream.res.writableEnded) stream.res.end();
    }
    this.byRequest.clear();
    this.onclose?.();
  }
}
