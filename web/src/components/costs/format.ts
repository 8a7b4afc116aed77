// How the pages write money and token counts: cents for most figures, more digits below a cent (a
// cheap model's task is real money too), never $0 for what has no price.
import type { CostTotals } from './api.ts';

export function usd(v: number): string {
  if (v === 0) return '$0';
  if (v < 0.01) return `$${v.toFixed(4)}`;
  if (v < 100) return `$${v.toFixed(2)}`;
  return `$${Math.round(v).toLocaleString('en-US')}`;
}

export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`;
}

/** "$0.25", "$0.25 + 1.1k tokens unpriced", or "1.1k tokens (unpriced)". */
export function costText(t: Pick<CostTotals, 'cost_usd' | 'unpriced' | 'total_tokens'>): string {
  if (t.cost_usd === null) return `${tokens(t.unpriced?.tokens ?? t.total_tokens)} tokens (unpriced)`;
  return t.unpriced ? `${usd(t.cost_usd)} + ${tokens(t.unpriced.tokens)} tokens unpriced` : usd(t.cost_usd);
}

/** The four kinds, for a title attribute. */
export function tokenBreakdown(t: CostTotals): string {
  return `input ${tokens(t.input_tokens)} · output ${tokens(t.output_tokens)} · cache write ${tokens(
    t.cache_write_tokens,
  )} · cache read ${tokens(t.cache_read_tokens)}`;
}
