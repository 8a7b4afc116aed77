// Shared checks for the envelope tests: every ok() result is judged against its own serialised text.
import assert from 'node:assert/strict';
import { budgetSize, estimateTokens, type Meta, TRUNCATION_SUFFIX } from '../../../shared/envelope/index.ts';
import { type InternalOptions, type OkOptions, okWithStats } from '../../../shared/envelope/trim.ts';

export type Json = Record<string, unknown>;

export interface Checked {
  data: Json;
  meta: Meta;
  text: string;
  size: number;
}

/** ok() on an object payload, with the invariants every result must satisfy asserted on the way. */
export function okChecked(data: Json, options: OkOptions = {}, internal: InternalOptions = {}): Checked {
  const { envelope, stats } = okWithStats(data, options, { verify: true, ...internal });
  assert.equal(stats.modelMismatches, 0, 'the size model disagreed with the serialised text');
  const text = JSON.stringify(envelope);
  const body = envelope.data as Json;
  const meta = body.meta as Meta;
  assert.equal(meta.tokens_estimated, estimateTokens(text), 'tokens_estimated describes the final envelope');
  return { data: body, meta, text, size: budgetSize(text) };
}

export function withoutMeta(data: Json): Json {
  const { meta: _meta, ...rest } = data;
  return rest;
}

/**
 * Whether `result` is `original` with only the ladder's cuts applied: lists shortened to a prefix,
 * strings of 200+ characters cut to a prefix ending in the suffix, everything else identical.
 */
export function isTrimOf(result: unknown, original: unknown): boolean {
  if (typeof original === 'string' && typeof result === 'string') {
    if (result === original) return true;
    if (original.length < 200 || !result.endsWith(TRUNCATION_SUFFIX) || result.length >= original.length)
      return false;
    return original.startsWith(result.slice(0, -TRUNCATION_SUFFIX.length));
  }
  if (Array.isArray(original)) {
    if (!Array.isArray(result) || result.length > original.length) return false;
    return result.every((item, i) => isTrimOf(item, original[i]));
  }
  if (original !== null && typeof original === 'object') {
    if (result === null || typeof result !== 'object' || Array.isArray(result)) return false;
    const keys = Object.keys(original);
    if (keys.length !== Object.keys(result).length) return false;
    return keys.every((key) => isTrimOf((result as Json)[key], (original as Json)[key]));
  }
  return Object.is(result, original);
}

export const range = (n: number) => Array.from({ length: n }, (_, i) => i);
