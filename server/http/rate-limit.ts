// Per-client rate limiting: a token bucket per MCP session (or per remote address for REST), so one
// runaway agent cannot starve the others. A refused request answers 429 with a `transient` envelope
// and Retry-After: waiting and retrying is exactly the right recovery.
import type { FastifyInstance } from 'fastify';
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

  /** Forgets clients whose buckets have refilled: they would start full anyway. */
  private sweep(now: number): void {
    const refillMs = (this.limit.burst / this.limit.perSecond) * 1000;
    for (const [key, b] of this.buckets) if (now - b.at > refillMs) this.buckets.delete(key);
  }

  get clients(): number {
    return this.buckets.size;
  }
}

export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  if (!limiter.enabled) return;
  // Callback style, not async: a promise per request costs a hot call µs.
  app.addHook('onRequest', (request, reply, done) => {
    const session = request.headers['mcp-session-id'];
    const key = typeof session === 'string' ? `mcp:${session}` : `ip:${request.ip}`;
    const waitMs = limiter.take(key);
    if (waitMs === 0) return done();
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    reply.header('retry-after', String(seconds));
    sendError(reply, 'transient', `too many requests from this client; retry after ${seconds} s`, {
      status: 429,
    });
  });
}
