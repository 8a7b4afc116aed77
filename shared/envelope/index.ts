// The envelope every cos_* tool answers with: `{ ok: true, data }` or `{ ok: false, error }`. ok() and
// fail() return plain objects; serialising is the caller's one JSON.stringify. Runtime-neutral on purpose
// (no node:* imports): the SPA imports the same types and guards.
import {
  ERROR_CATEGORIES,
  type ErrorCategory,
  type Layer,
  RETRYABLE_DEFAULTS,
  type ResolvedFrom,
} from './constants.ts';
import type { ErrorBody } from './schemas.ts';
import { type OkOptions, okWithStats } from './trim.ts';

export { budgetSize, estimateTokens } from './budget.ts';
export {
  ERROR_CATEGORIES,
  type ErrorCategory,
  GRAPH_SUBGRAPH_BUDGET_CHARS,
  HTTP_ONLY_ERROR_CATEGORIES,
  type HttpOnlyErrorCategory,
  LAYERS,
  type Layer,
  RESOLVED_FROM,
  RETRYABLE_DEFAULTS,
  type ResolvedFrom,
  SCALAR_TRIM_FLOOR_CHARS,
  TOKEN_BUDGET_CHARS,
  TRIMMABLE_LIST_KEYS,
  TRUNCATION_SUFFIX,
  type TrimmableListKey,
} from './constants.ts';
export {
  EnvelopeSchema,
  type ErrorBody,
  ErrorBodySchema,
  ErrorEnvelopeSchema,
  envelopeSchemaFor,
  MetaSchema,
  okEnvelopeSchema,
} from './schemas.ts';
export type { CallerMeta, OkOptions } from './trim.ts';

export interface TrimRange {
  from: number;
  to: number;
}

/** `data.meta` of an object payload. Keys ok() computes are typed; tools may add their own. */
export interface Meta {
  layer?: Layer;
  tokens_estimated: number;
  truncated: boolean;
  truncated_subgraph?: boolean;
  truncated_edges_by_type?: Record<string, TrimRange>;
  truncated_members?: Record<string, TrimRange>;
  truncated_string_fields?: string[];
  envelope_unshrinkable?: boolean;
  next_cursor?: string | null;
  next_offset?: number | null;
  resolved_from?: ResolvedFrom;
  [key: string]: unknown;
}

/** Object payloads gain `meta`; lists, scalars and null pass through unchanged. */
export type OkData<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? Omit<T, 'meta'> & { meta: Meta }
    : T;

export interface OkEnvelope<T = unknown> {
  ok: true;
  data: OkData<T>;
}

export interface ErrorEnvelope {
  ok: false;
  error: ErrorBody;
}

export type Envelope<T = unknown> = OkEnvelope<T> | ErrorEnvelope;

/**
 * Success envelope. An object payload gets `data.meta`: any `meta` it already carries, then the caller's
 * `meta` over it, then the keys only ok() may set (`tokens_estimated`, `truncated`, `truncated_*`,
 * `envelope_unshrinkable`). With `applyBudget` (the default) the body is trimmed to the token budget;
 * `applyBudget: false` is for browser routes, which page by themselves. Never mutates `data`.
 */
export function ok<T>(data: T, options: OkOptions = {}): OkEnvelope<T> {
  return okWithStats(data, options).envelope as OkEnvelope<T>;
}

/**
 * ok() and, when it comes free, the envelope's JSON text: exactly `JSON.stringify(envelope)`. The common
 * answer, small enough to be measured whole, has it (the serialisation that measured it, so the MCP face
 * serialises the envelope once in all); a trimmed one has `undefined`, to be serialised by the caller.
 * `textBytes` is the text's UTF-8 length when measuring showed it is plain ASCII.
 */
export function okWithText<T>(
  data: T,
  options: OkOptions = {},
): { envelope: OkEnvelope<T>; text: string | undefined; textBytes: number | undefined } {
  const { envelope, text, textBytes } = okWithStats(data, options);
  return { envelope: envelope as OkEnvelope<T>, text, textBytes };
}

/**
 * Error envelope. `retryable` defaults per category (only transient and unavailable are retryable).
 * An unknown category is a programming error and throws.
 */
export function fail(
  category: ErrorCategory,
  message: string,
  options: { retryable?: boolean } = {},
): ErrorEnvelope {
  if (!(ERROR_CATEGORIES as readonly string[]).includes(category)) {
    throw new TypeError(`fail(): unknown error category ${JSON.stringify(category)}`);
  }
  const retryable = options.retryable ?? RETRYABLE_DEFAULTS[category];
  return { ok: false, error: { category, retryable, message: String(message) } };
}

export function isOk<T>(envelope: Envelope<T>): envelope is OkEnvelope<T> {
  return envelope.ok;
}
