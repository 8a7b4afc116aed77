// Error answers that do not come from a tool (security checks, Fastify's own failures) use the same
// { error: { category, retryable, message } } body as tool errors.
import type { FastifyReply } from 'fastify';
import type { ErrorCategory } from '../../shared/envelope/index.ts';
import { fail } from '../../shared/envelope/index.ts';
import { RETRY_AFTER_SECONDS, statusFor } from './unwrap.ts';

export type HttpErrorCategory = ErrorCategory | 'unauthorized';

export function errorBody(category: HttpErrorCategory, message: string, retryable?: boolean) {
  if (category === 'unauthorized')
    return { ok: false as const, error: { category, retryable: retryable ?? false, message } };
  const envelope = fail(category, message, retryable === undefined ? {} : { retryable });
  return { ok: false as const, error: envelope.error };
}

export function sendError(
  reply: FastifyReply,
  category: HttpErrorCategory,
  message: string,
  options: { status?: number; retryable?: boolean } = {},
): FastifyReply {
  const status = options.status ?? statusFor(category);
  if (status === 503 || status === 429) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(category, message, options.retryable));
}
