// DNS-rebinding and cross-origin protection, and the token. Runs first on every request (onRequest), so a
// refused request never reaches a route, the MCP transport or the database.
//
// Whether a request needs the token is decided on the route the router chose for it, never on the raw
// URL: the router decodes the path (`/%61pi` routes to `/api`), so a check on the raw text could be
// walked around. Every route needs the token unless it was registered as public (the SPA's files, the
// OpenAPI document, the one-time login link); a request no route matched is judged on its path decoded
// once and normalised (dot segments, repeated slashes, case), so an unknown `/api/…` answers 401, not 404.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Config } from '../config.ts';
import { sendError } from './error-reply.ts';
import type { LoginSessions } from './login.ts';

/**
 * Who may call a route. `token` (the default for every route): the token, or the SPA's login cookie, when
 * the hub has one. `public`: anyone who passes the Host and Origin checks. `login`: the one-time login
 * link, which proves itself with its code and so may arrive on any Host.
 */
export type Access = 'token' | 'public' | 'login';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

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

/**
 * An Origin the hub trusts: its own page. On loopback any loopback name on the hub's port; otherwise
 * (a LAN name, reachable only with the token or the login cookie) exactly the Host the request came to.
 */
export function isSameOrigin(origin: string, port: number, host?: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const p = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (LOOPBACK_NAMES.has(url.hostname.toLowerCase())) return p === port;
  return host !== undefined && url.host.toLowerCase() === host.trim().toLowerCase();
}

/**
 * The route families that hold the hub's data and actions: `/mcp`, `/api`, `/metrics`, followed by the
 * end or anything that cannot continue a name (`/api/…`, `/api;x`, `/metrics%00`); and the same under a
 * project's `/p/<slug>/`, so a slug the hub does not serve is refused like the default's routes.
 */
const PROTECTED_FAMILY = /^(?:\/p\/[^/]+)?\/(?:mcp|api|metrics)(?![\p{L}\p{N}_.-])/u;

/**
 * A request path as the most lenient reader would take it: the query cut off, dot segments resolved
 * (`%2e` included, as WHATWG URLs do), decoded once (`%2f` becomes `/`), repeated slashes collapsed,
 * lower-cased. Used only for requests no route matched, to say which family they were aiming at.
 */
export function normalisedPath(url: string): string {
  const raw = url.split(/[?#]/, 1)[0] || '/';
  let path = raw;
  try {
    // Prefixed with an origin so `//api` stays a path and is not read as a host.
    path = new URL(`http://h${raw.startsWith('/') ? '' : '/'}${raw.replaceAll('\\', '/')}`).pathname;
  } catch {
    // Not parseable as a URL path: judge the raw text.
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    // A lone `%`: the router refuses it anyway; judge what is there.
  }
  path = path.replace(/\/{2,}/g, '/').toLowerCase();
  // Decoding may have produced new dot segments (`%2e%2e` inside `%2f`); resolve them too.
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '.' || part === '') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}${path.endsWith('/') && parts.length > 0 ? '/' : ''}`;
}

export function isProtectedPath(path: string): boolean {
  return PROTECTED_FAMILY.test(path);
}

/** The access a request gets: its route's, or, when no route matched, its normalised path's family. */
export function accessOf(request: FastifyRequest): Access {
  if (request.is404) return isProtectedPath(normalisedPath(request.url)) ? 'token' : 'public';
  return request.routeOptions.config.access ?? 'token';
}

/** Marks every route registered in a context as public (use inside an encapsulated plugin). */
export function markPublic(route: RouteOptions): void {
  route.config = { ...(route.config ?? {}), access: route.config?.access ?? 'public' };
}

/** Why a request is refused before it reaches a route, or undefined when it may go on. */
function refusal(
  request: FastifyRequest,
  reply: FastifyReply,
  config: Config,
  logins: LoginSessions | undefined,
): FastifyReply | undefined {
  const access = accessOf(request);
  const bearer = config.token !== undefined && tokenMatches(request.headers.authorization, config.token);
  const authenticated = bearer || (logins?.isSignedIn(request.headers.cookie) ?? false);

  // A forged Host is how DNS rebinding reaches a loopback server; a valid token or login cookie proves
  // the caller is not a rebinding page (it knows neither, and a browser sends cookies only to the host
  // that set them), so it may use any Host (e.g. a LAN name). The login link carries its own proof.
  if (!authenticated && access !== 'login' && !isLoopbackHost(request.headers.host)) {
    return sendError(
      reply,
      'permission',
      'the Host header is not a loopback name; the hub answers only http://127.0.0.1 or http://localhost',
    );
  }
  const origin = request.headers.origin;
  if (
    origin !== undefined &&
    origin !== 'null' &&
    !isSameOrigin(origin, hubPort(request, config), request.headers.host)
  ) {
    return sendError(
      reply,
      'permission',
      'cross-origin requests are refused; open the hub page itself to use it from a browser',
    );
  }
  if (origin === 'null' || request.headers['sec-fetch-site'] === 'cross-site') {
    return sendError(reply, 'permission', 'cross-site requests are refused');
  }
  if (config.token !== undefined && access === 'token' && !authenticated) {
    reply.header('www-authenticate', 'Bearer realm="cos-hub"');
    return sendError(
      reply,
      'unauthorized',
      'this hub requires a token: send `Authorization: Bearer <COS_HUB_TOKEN>`; in a browser, open the one-time link `cos serve` printed (or run `cos login`)',
    );
  }
  return undefined;
}

export function registerSecurity(app: FastifyInstance, config: Config, logins?: LoginSessions): void {
  // Callback style, not async: every request passes here, and a promise per hook costs a hot call µs.
  app.addHook('onRequest', (request, reply, done) => {
    if (!refusal(request, reply, config, logins)) done();
  });
}
