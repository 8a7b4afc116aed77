// What a transcript parser yields: one model response's tokens, keyed so the same response read twice
// (a repeated line, a resumed session's copy, a file read again after rotation) is one record.
import type { TokenCounts } from '../prices.ts';

export interface UsageEntry extends TokenCounts {
  /** Unique across transcripts of every client: `cc:…` Claude Code, `cx:…` Codex, `gm:…` Gemini CLI. */
  key: string;
  /** When the response was written (ms since the epoch), or null when the transcript does not say. */
  at: number | null;
  model: string | null;
}

/** A token count as transcripts write it: a finite number ≥ 0, else 0. */
export function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

export function instant(v: unknown): number | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const t = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

export function asObject(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

export function str(v: unknown, max = 200): string | null {
  return typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;
}

export function isEmpty(e: TokenCounts): boolean {
  return e.input_tokens + e.output_tokens + e.cache_write_tokens + e.cache_read_tokens === 0;
}
