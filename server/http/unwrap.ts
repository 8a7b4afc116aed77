// The REST face of an envelope: success → 200 { data, meta }; error → { error } with the status its
// category maps to. The browser gets the same envelope an agent gets, untrimmed.
import type { Envelope } from '../../shared/envelope/index.ts';

export const STATUS_BY_CATEGORY: Record<string, number> = {
  validation: 400,
  unauthorized: 401,
  permission: 403,
  module_disabled: 403,
  not_found: 404,
  internal: 500,
  transient: 503,
  unavailable: 503,
};

export function statusFor(category: string): number {
  return STATUS_BY_CATEGORY[category] ?? 500;
}

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 1;

export interface Unwrapped {
  status: number;
  body:
    | { data: unknown; meta: Record<string, unknown> }
    | { ok: false; error: { category: string; retryable: boolean; message: string } };
}

export function unwrap(envelope: Envelope): Unwrapped {
  // An error body is the error envelope itself, as OpenAPI declares it (ErrorEnvelope).
  if (!envelope.ok)
    return { status: statusFor(envelope.error.category), body: { ok: false, error: envelope.error } };
  const data = envelope.data;
  if (data !== null && typeof data === 'object' && !Array.isArray(data) && 'meta' in data) {
    const { meta, ...rest } = data as { meta: Record<string, unknown> } & Record<string, unknown>;
    return { status: 200, body: { data: rest, meta } };
  }
  return { status: 200, body: { data, meta: {} } };
}
