// Budget enforcement for ok(). (First cut: meta rules and the exact token estimate; the trim ladder follows.)
import { countChars, settleTokens } from './budget.ts';
import { GRAPH_SUBGRAPH_BUDGET_CHARS, TOKEN_BUDGET_CHARS } from './constants.ts';

export interface OkOptions {
  meta?: Record<string, unknown>;
  applyBudget?: boolean;
}

export interface TrimStats {
  serialisations: number;
  serialisedChars: number;
}

type Json = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const COMPUTED_KEY = /^(tokens_estimated|truncated|truncated_.*|envelope_unshrinkable)$/;

function callerMeta(target: Json, source: unknown, what: string): void {
  if (source === undefined || source === null) return;
  if (!isPlainObject(source)) throw new TypeError(`ok(): ${what} must be a plain object`);
  for (const [key, value] of Object.entries(source)) {
    if (!COMPUTED_KEY.test(key)) target[key] = value;
  }
}

export function okWithStats(
  data: unknown,
  options: OkOptions = {},
): { envelope: { ok: true; data: unknown }; stats: TrimStats } {
  const stats: TrimStats = { serialisations: 0, serialisedChars: 0 };
  if (!isPlainObject(data)) return { envelope: { ok: true, data }, stats };
  const meta: Json = {};
  callerMeta(meta, data.meta, 'data.meta');
  callerMeta(meta, options.meta, 'options.meta');
  meta.tokens_estimated = 0;
  meta.truncated = false;
  const body: Json = { ...data };
  delete body.meta;
  body.meta = meta;
  const envelope = { ok: true as const, data: body };
  const text = JSON.stringify(envelope);
  stats.serialisations++;
  stats.serialisedChars += text.length;
  const { ascii, nonAscii } = countChars(text);
  let settled = settleTokens(ascii, nonAscii);
  const budget =
    Array.isArray(body.nodes) && Array.isArray(body.edges) ? GRAPH_SUBGRAPH_BUDGET_CHARS : TOKEN_BUDGET_CHARS;
  if (options.applyBudget !== false && settled.size > budget) {
    meta.envelope_unshrinkable = true;
    settled = settleTokens(ascii + ',"envelope_unshrinkable":true'.length, nonAscii);
  }
  meta.tokens_estimated = settled.tokens;
  return { envelope, stats };
}
