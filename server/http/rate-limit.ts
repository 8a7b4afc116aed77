// Per-client rate limiting: a token bucket per client the hub knows (a real MCP session, a login, else the
// connection, under a ceiling per address), so one runaway agent or script cannot starve the others. A refused request answers 429 with a `transient` envelope
// and Retry-After: waiting and retrying is exactly the right recovery.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError } from './error-reply.ts';

export interface RateLimit {
  /** Sustained requests per second per client; 0 turns limiting off. */
  perSecond: number;
  /** Requests a client may send at once before the rate applies. */
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_CLIENTS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether requests are limited at all (a rate of 0 turns limiting off). */
  get enabled(): boolean {
    return this.limit.perSecond > 0;
  }

  /** Milliseconds to wait before `key` may send again, or 0 when the request may go ahead now. */
  take(key: string): number {
    if (!this.enabled) return 0;
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= MAX_CLIENTS) this.sweep(now);
      bucket = { tokens: this.limit.burst, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(
        this.limit.burst,
        bucket.tokens + ((now - bucket.at) / 1000) * this.limit.perSecond,
      );
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / this.limit.perSecond) * 1000);
  }

  /** Gives back a token taken for a request that was refused after all. */
  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.limit.burst, bucket.tokens + 1);
  }

  get rate(): RateLimit {
    return this.limit;
  }

  /** Forgets clients whose buckets have refilled: they would start full anyway. */
  private sweep(now: number): void {
    const refillMs = (this.limit.burst / this.limit.perSecond) * 1000;
    for (const [key, b] of this.buckets) if (now - b.at > refillMs) this.buckets.delete(key);
  }

  get clients(): number {
    return this.buckets.size;
  }
}

/** Who the hub knows a request to come from; never what the request merely claims. */
export interface KnownCallers {
  /** Whether the hub holds this MCP session (it made it at initialize). */
  hasSession(id: string): boolean;
  /** The login session a Cookie header names, when the hub issued it and it is live. */
  loginOf(cookieHeader: string | undefined): string | undefined;
}

/** How much more than one client all the anonymous clients of one address may send together. */
export const ADDRESS_FACTOR = 4;

const connections = new WeakMap<object, number>();
let nextConnection = 0;

/** A number per TCP connection: the one thing an anonymous caller cannot change without a new one. */
function connectionOf(socket: object): number {
  let n = connections.get(socket);
  if (n === undefined) {
    n = ++nextConnection;
    connections.set(socket, n);
  }
  return n;
}

/**
 * The bucket a request spends from. A real MCP session or a live login cookie is a client of its own;
 * anything else (REST without a login, an initialize, a made-up Mcp-Session-Id) is its connection, and
 * all the anonymous connections of one address also share a ceiling ADDRESS_FACTOR times one client's,
 * so opening connections cannot dodge the limit, while one throttled script leaves room for the SPA.
 */
export function callerKey(
  known: KnownCallers,
  headers: { 'mcp-session-id'?: string | string[]; cookie?: string },
  socket: object,
): { key: string; anonymous: boolean } {
  const session = headers['mcp-session-id'];
  if (typeof session === 'string' && known.hasSession(session))
    return { key: `mcp:${session}`, anonymous: false };
  const login = known.loginOf(headers.cookie);
  if (login !== undefined) return { key: `login:${login}`, anonymous: false };
  return { key: `conn:${connectionOf(socket)}`, anonymous: true };
}

export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter, known: KnownCallers): void {
  if (!limiter.enabled) return;
  const ceiling = new RateLimiter({
    perSecond: limiter.rate.perSecond * ADDRESS_FACTOR,
    burst: limiter.rate.burst * ADDRESS_FACTOR,
  });
  const refuse = (reply: FastifyReply, waitMs: number, who: string) => {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    reply.header('retry-after', String(seconds));
    sendError(reply, 'transient', `too many requests from ${who}; retry after ${seconds} s`, {
      status: 429,
    });
  };
  // Callback style, not async: a promise per request costs a hot call µs.
  app.addHook('onRequest', (request, reply, done) => {
    const { key, anonymous } = callerKey(known, request.headers, request.raw.socket);
    const waitMs = limiter.take(key);
    if (waitMs > 0) return refuse(reply, waitMs, 'this client');
    if (anonymous) {
      const sharedWaitMs = ceiling.take(`ip:${request.ip}`);
      if (sharedWaitMs > 0) {
        limiter.refund(key);
        return refuse(reply, sharedWaitMs, 'this address (every client without an MCP session or a login)');
      }
    }
    done();
  });
}
