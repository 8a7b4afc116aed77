// What happens below Fastify: Node's HTTP server settings and the answers Node gives on its own when a
// request cannot be parsed (400), its headers are too large (431) or it arrives too slowly (408). Those
// answers carry the hub's error envelope like every other, and close the connection, which Fastify's
// default handler forgets to say (a keep-alive client then sends its next request into a closed socket).
import { type ServerOptions, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';
import { errorBody } from './error-reply.ts';

type ClientError = Error & { code?: string };

function answer(error: ClientError, requestTimeoutMs: number): { status: number; body: unknown } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        body: errorBody(
          'transient',
          `the request did not arrive within ${Math.round(requestTimeoutMs / 1000)} s; send it again, all at once`,
        ),
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        body: errorBody(
          'validation',
          'the request headers are larger than the hub accepts (16 KB); send fewer or shorter headers',
        ),
      };
    default:
      return {
        status: 400,
        body: errorBody(
          'validation',
          'the request is not valid HTTP/1.1 (a malformed request line or header); check how it is built',
        ),
      };
  }
}

/** Fastify's `clientErrorHandler`: an envelope, then close (the connection's state is unknown). */
export function clientErrorHandler(requestTimeoutMs: number) {
  return (error: ClientError, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // As Node's own handler: no raw answer into a response already under way on this socket.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const { status, body } = answer(error, requestTimeoutMs);
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy();
  };
}

/**
 * Node's server settings. A body dripped a byte at a time is bounded like headers are: the whole request
 * must arrive within `requestTimeoutMs` (Fastify turns Node's limit off by default). Streams the hub sends
 * (SSE) are responses, so they are not cut by it. Node checks the limit every `connectionsCheckingInterval`.
 */
export function serverOptions(config: Config): {
  requestTimeout: number;
  http: ServerOptions;
  clientErrorHandler: (error: ClientError, socket: Socket) => void;
} {
  const requestTimeout = config.requestTimeoutMs;
  return {
    requestTimeout,
    http: {
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 60_000),
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(requestTimeout / 4))),
    },
    clientErrorHandler: clientErrorHandler(requestTimeout),
  };
}
