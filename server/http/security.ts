// DNS-rebinding and cross-origin protection, and the bearer token off loopback. Runs first on every
// request (onRequest), so a refused request never reaches a route, the MCP transport or the database.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { sendError } from './error-reply.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The hostname part of a Host header (`[::1]:9188` → `[::1]`, `localhost:80` → `localhost`). */
export function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_NAMES.has(hostnameOf(host));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Constant-time comparison of the presented bearer token with the configured one. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  if (!header) return false;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match?.[1]) return false;
  return timingSafeEqual(digest(match[1]), digest(token));
}

function hubPort(request: FastifyRequest, config: Config): number {
  return request.socket?.localPort ?? config.port;
}

/** An Origin the hub trusts: its own page (http://<loopback>:<hub port>). */
export function isSameOrigin(origin: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (!LOOPBACK_NAMES.has(url.hostname.toLowerCase())) return false;
  const p = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return p === port;
}

const PROTECTED_PREFIXES = ['/mcp', '/api/', '/metrics'];

/** Why a request is refused before it reaches a route, or undefined when it may go on. */
function refusal(request: FastifyRequest, reply: FastifyReply, config: Config): FastifyReply | undefined {
  const authenticated =
    config.token !== undefined && tokenMatches(request.headers.authorization, config.token);

  // A forged Host is how DNS rebinding reaches a loopback server; a valid token proves the caller is
  // not a rebinding page (it cannot know the token), so it may use any Host (e.g. a LAN name).
  if (!authenticated && !isLoopbackHost(request.headers.host)) {
    return sendError(
      reply,
      'permission',
      'the Host header is not a loopback name; the hub answers only http://127.0.0.1 or http://localhost',
    );
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null' && !isSameOrigin(origin, hubPort(request, config))) {
    return sendError(
      reply,
      'permission',
      'cross-origin requests are refused; open the hub page itself to use it from a browser',
    );
  }
  if (origin === 'null' || request.headers['sec-fetch-site'] === 'cross-site') {
    return sendError(reply, 'permission', 'cross-site requests are refused');
  }
  if (config.token !== undefined && !authenticated && isProtected(request.url)) {
    reply.header('www-authenticate', 'Bearer realm="cos-hub"');
    return sendError(
      reply,
      'unauthorized',
      'this hub requires a token: send `Authorization: Bearer <COS_HUB_TOKEN>`',
    );
  }
  return undefined;
}

function isProtected(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '/';
  return PROTECTED_PREFIXES.some((p) => path === p || path.startsWith(p));
}

export function registerSecurity(app: FastifyInstance, config: Config): void {
  // Callback style, not async: every request passes here, and a promise per hook costs a hot call µs.
  app.addHook('onRequest', (request, reply, done) => {
    if (!refusal(request, reply, config)) done();
  });
}
