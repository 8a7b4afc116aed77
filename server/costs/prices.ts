// What a model's tokens cost: USD per million tokens of input, output, cache write and cache read, per
// model id prefix. The table below ships with the hub; `<state-dir>/prices.json` overrides or adds
// prefixes (`{"models": {"<prefix>": {"input", "output", "cache_write", "cache_read"}}}`). The longest
// prefix that a model id starts with wins. A model no prefix matches is unpriced: its tokens are
// counted and the report says so, it is never costed at 0.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface Price {
  input: number;
  output: number;
  cache_write: number;
  cache_read: number;
}

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_read_tokens: number;
}

export const PRICES_FILE_NAME = 'prices.json';

/**
 * The vendors' list prices (USD per million tokens) for their current models, standard tier, prompts
 * under the long-context threshold. Cache write is Anthropic's 5-minute write; OpenAI and Google bill
 * no separate cache write (their transcripts report none), so it is the input price. Dated: check the
 * vendors' pages and put corrections in prices.json.
 */
export const PRICES_AS_OF = '2025-11';
const p = (input: number, output: number, cache_write: number, cache_read: number): Price => ({
  input,
  output,
  cache_write,
  cache_read,
});
export const SHIPPED_PRICES: Readonly<Record<string, Price>> = {
  // Anthropic
  'claude-opus-4-5': p(5, 25, 6.25, 0.5),
  'claude-opus-4-1': p(15, 75, 18.75, 1.5),
  'claude-opus-4': p(15, 75, 18.75, 1.5),
  'claude-sonnet-4-5': p(3, 15, 3.75, 0.3),
  'claude-sonnet-4': p(3, 15, 3.75, 0.3),
  'claude-haiku-4-5': p(1, 5, 1.25, 0.1),
  'claude-3-7-sonnet': p(3, 15, 3.75, 0.3),
  'claude-3-5-sonnet': p(3, 15, 3.75, 0.3),
  'claude-3-5-haiku': p(0.8, 4, 1, 0.08),
  'claude-3-opus': p(15, 75, 18.75, 1.5),
  'claude-3-haiku': p(0.25, 1.25, 0.3, 0.03),
  // OpenAI
  'gpt-5.1-codex-mini': p(0.25, 2, 0.25, 0.025),
  'gpt-5.1-codex': p(1.25, 10, 1.25, 0.125),
  'gpt-5.1': p(1.25, 10, 1.25, 0.125),
  'gpt-5-codex': p(1.25, 10, 1.25, 0.125),
  'gpt-5-mini': p(0.25, 2, 0.25, 0.025),
  'gpt-5-nano': p(0.05, 0.4, 0.05, 0.005),
  'gpt-5': p(1.25, 10, 1.25, 0.125),
  'gpt-4.1-mini': p(0.4, 1.6, 0.4, 0.1),
  'gpt-4.1-nano': p(0.1, 0.4, 0.1, 0.025),
  'gpt-4.1': p(2, 8, 2, 0.5),
  'gpt-4o-mini': p(0.15, 0.6, 0.15, 0.075),
  'gpt-4o': p(2.5, 10, 2.5, 1.25),
  'gpt-5-pro': p(15, 120, 15, 15),
  'o4-mini': p(1.1, 4.4, 1.1, 0.275),
  'o3-mini': p(1.1, 4.4, 1.1, 0.55),
  'o3-pro': p(20, 80, 20, 20),
  o3: p(2, 8, 2, 0.5),
  'o1-mini': p(1.1, 4.4, 1.1, 0.55),
  o1: p(15, 60, 15, 7.5),
  'codex-mini': p(1.5, 6, 1.5, 0.375),
  // Google
  'gemini-3-pro': p(2, 12, 2, 0.2),
  'gemini-2.5-pro': p(1.25, 10, 1.25, 0.125),
  'gemini-2.5-flash-lite': p(0.1, 0.4, 0.1, 0.01),
  'gemini-2.5-flash': p(0.3, 2.5, 0.3, 0.03),
  'gemini-2.0-flash-lite': p(0.075, 0.3, 0.075, 0.075),
  'gemini-2.0-flash': p(0.1, 0.4, 0.1, 0.025),
};

/**
 * A model id as the tables key it: lower case, without a provider's routing prefix (`anthropic/…`,
 * Bedrock's `us.anthropic.…`, Vertex's `…@20250514` date suffix kept as part of the id).
 */
export function modelKey(model: string): string {
  let m = model.trim().toLowerCase();
  m = m.replace(/^(?:models\/|anthropic\/|openai\/|google\/|vertex_ai\/|bedrock\/)/, '');
  m = m.replace(/^(?:[a-z]{2}\.)?anthropic\./, '');
  return m.replace('@', '-');
}

export interface PriceTable {
  /** The price of a model, or null when no prefix matches (unpriced). */
  priceOf(model: string | null): { prefix: string; price: Price } | null;
  /** USD for these tokens of this model, or null when it is unpriced. */
  cost(model: string | null, tokens: TokenCounts): number | null;
  /** Where the prices come from: the shipped table, and the override file when it is read. */
  source(): { as_of: string; file: string | null; overrides: number; error: string | null };
}

function isPrice(v: unknown): v is Price {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return ['input', 'output', 'cache_write', 'cache_read'].every(
    (k) => typeof o[k] === 'number' && Number.isFinite(o[k]) && (o[k] as number) >= 0,
  );
}

/** Reads and checks an override file's text; throws with what to fix. */
export function parsePriceFile(text: string): Record<string, Price> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new Error(`${PRICES_FILE_NAME} is not JSON (${(err as Error).message})`);
  }
  const models = (body as { models?: unknown } | null)?.models;
  if (models === null || typeof models !== 'object' || Array.isArray(models))
    throw new Error(`${PRICES_FILE_NAME} needs {"models": {"<model id prefix>": {...}}}`);
  const out: Record<string, Price> = {};
  for (const [prefix, price] of Object.entries(models as Record<string, unknown>)) {
    if (prefix.trim() === '') throw new Error(`${PRICES_FILE_NAME}: a model prefix is empty`);
    if (!isPrice(price))
      throw new Error(
        `${PRICES_FILE_NAME}: "${prefix}" needs input, output, cache_write and cache_read, each a number ≥ 0 (USD per million tokens)`,
      );
    const { input, output, cache_write, cache_read } = price;
    out[modelKey(prefix)] = { input, output, cache_write, cache_read };
  }
  return out;
}

/** USD for `tokens` at `price` (per million tokens). */
export function costAt(price: Price, tokens: TokenCounts): number {
  return (
    (tokens.input_tokens * price.input +
      tokens.output_tokens * price.output +
      tokens.cache_write_tokens * price.cache_write +
      tokens.cache_read_tokens * price.cache_read) /
    1_000_000
  );
}

/**
 * The shipped table with `<stateDir>/prices.json` over it. The file is read again when it changes
 * (checked at most once a second); a file that does not parse leaves the shipped table in force and
 * says why in source().error.
 */
export function createPriceTable(stateDir: string | null, shipped = SHIPPED_PRICES): PriceTable {
  const file = stateDir === null ? null : join(stateDir, PRICES_FILE_NAME);
  let table = new Map<string, Price>(Object.entries(shipped));
  let prefixes = sortedPrefixes(table);
  let overrides = 0;
  let error: string | null = null;
  let seenMtime = -1;
  let checkedAt = 0;
  const memo = new Map<string, { prefix: string; price: Price } | null>();

  function refresh(): void {
    if (file === null) return;
    const t = Date.now();
    if (t - checkedAt < 1000) return;
    checkedAt = t;
    let mtime: number;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (mtime === seenMtime) return;
    seenMtime = mtime;
    const next = new Map<string, Price>(Object.entries(shipped));
    overrides = 0;
    error = null;
    if (mtime !== 0) {
      try {
        const extra = parsePriceFile(readFileSync(file, 'utf8'));
        for (const [k, v] of Object.entries(extra)) next.set(k, v);
        overrides = Object.keys(extra).length;
      } catch (err) {
        error = `${(err as Error).message}; the shipped prices apply until it is fixed`;
      }
    }
    table = next;
    prefixes = sortedPrefixes(table);
    memo.clear();
  }

  function priceOf(model: string | null): { prefix: string; price: Price } | null {
    if (model === null || model === '') return null;
    refresh();
    const key = modelKey(model);
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const prefix = prefixes.find((p) => key.startsWith(p));
    const found = prefix === undefined ? null : { prefix, price: table.get(prefix) as Price };
    if (memo.size < 10_000) memo.set(key, found);
    return found;
  }

  return {
    priceOf,
    cost(model, tokens) {
      const hit = priceOf(model);
      return hit ? costAt(hit.price, tokens) : null;
    },
    source() {
      refresh();
      return { as_of: PRICES_AS_OF, file: overrides > 0 || error ? file : null, overrides, error };
    },
  };
}

/** Longest first, so `claude-opus-4-5` is tried before `claude-opus-4`. */
function sortedPrefixes(table: Map<string, Price>): string[] {
  return [...table.keys()].sort((a, b) => b.length - a.length || a.localeCompare(b));
}
