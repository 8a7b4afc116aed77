// The person's way into the SPA when the hub has a token. A page cannot send `Authorization` by itself,
// and a token in a URL ends up in history, logs and screenshots; so `cos serve` (or `cos login`) prints
// a one-time link, and opening it sets an HttpOnly, SameSite=Strict cookie that stands for the token
// from then on. The link's code is good once and for a few minutes; the cookie lives in this process only
// (a restart signs everyone out, and a new link is printed).
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export const LOGIN_COOKIE = 'cos_hub_session';
const CODE_TTL_MS = 10 * 60_000;
const SESSION_TTL_MS = 30 * 24 * 3600_000;
const MAX_CODES = 32;
const MAX_SESSIONS = 256;

const secret = () => randomBytes(32).toString('base64url');
const key = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The value of one cookie in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class LoginSessions {
  // Only digests are kept: a heap dump or a log of this object gives no usable code or cookie.
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time code (the caller makes the link `/login?code=<code>`). */
  issue(): { code: string; expiresAt: number } {
    this.sweep();
    if (this.codes.size >= MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    const code = secret();
    const expiresAt = this.now() + CODE_TTL_MS;
    this.codes.set(key(code), expiresAt);
    return { code, expiresAt };
  }

  /** Spends a code: the cookie value of a new session, or undefined when the code is unknown, used or old. */
  redeem(code: string): string | undefined {
    const k = key(code);
    const expiresAt = this.codes.get(k);
    this.codes.delete(k);
    if (expiresAt === undefined || expiresAt < this.now()) return undefined;
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    const value = secret();
    this.sessions.set(key(value), this.now() + SESSION_TTL_MS);
    return value;
  }

  isSignedIn(cookieHeader: string | undefined): boolean {
    return this.sessionOf(cookieHeader) !== undefined;
  }

  /** The digest of the live login session the cookie header names, or undefined (none, unknown, expired). */
  sessionOf(cookieHeader: string | undefined): string | undefined {
    if (this.sessions.size === 0) return undefined;
    const value = cookieValue(cookieHeader, LOGIN_COOKIE);
    if (!value) return undefined;
    const k = key(value);
    const expiresAt = this.sessions.get(k);
    if (expiresAt === undefined) return undefined;
    if (expiresAt >= this.now()) return k;
    this.sessions.delete(k);
    return undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, at] of this.codes) if (at < now) this.codes.delete(k);
    for (const [k, at] of this.sessions) if (at < now) this.sessions.delete(k);
  }
}

function page(title: string, text: string): string {
  return `<!doctype html><meta charset="utf-8"><title>cos hub: ${title}</title><h1>${title}</h1><p>${text}</p>`;
}

/**
 * GET /login?code=… (public to the Host check: the code is the proof) and POST /api/login-links (needs
 * the token; what `cos login` calls for a fresh link).
 */
export function registerLogin(app: FastifyInstance, logins: LoginSessions, hasToken: boolean): void {
  app.get('/login', { schema: { hide: true }, config: { access: 'login' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    if (!hasToken) return reply.redirect('/', 303);
    const code = (request.query as { code?: unknown }).code;
    const value = typeof code === 'string' && code.length <= 100 ? logins.redeem(code) : undefined;
    if (value === undefined) {
      return reply
        .code(401)
        .type('text/html; charset=utf-8')
        .send(
          page(
            'This link no longer works',
            'A login link works once and for ten minutes. Run <code>cos login</code> (or restart <code>cos serve</code>) and open the new link it prints.',
          ),
        );
    }
    const secure = request.protocol === 'https' ? '; Secure' : '';
    reply.header(
      'set-cookie',
      `${LOGIN_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}${secure}`,
    );
    return reply.redirect('/', 303);
  });

  app.post(
    '/api/login-links',
    // Hidden from OpenAPI like /mcp and /metrics: it is the CLI's door, not part of the SPA's API.
    { schema: { hide: true } },
    async () => {
      const { code, expiresAt } = logins.issue();
      return { data: { path: `/login?code=${code}`, expires_at: new Date(expiresAt).toISOString() } };
    },
  );
}
