// Codex's session files (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`): `session_meta` names the
// session, `turn_context` the model of the turns that follow, and `event_msg` lines of type
// `token_count` carry `info.total_token_usage` (running totals of the session) and
// `info.last_token_usage` (the last request). Codex writes token_count again without a new request
// (a rate-limit update repeats the totals), so usage is the growth of the running totals, keyed by
// the total it reached. OpenAI counts cached input inside input_tokens: here it moves to cache reads.
import { asObject, count, instant, str, type UsageEntry } from './usage.ts';

interface CodexTotals {
  input: number;
  cached: number;
  output: number;
  total: number;
}

export interface CodexState {
  session: string | null;
  model: string | null;
  totals: CodexTotals | null;
}

export const newCodexState = (): CodexState => ({ session: null, model: null, totals: null });

function totalsOf(u: Record<string, unknown> | null): CodexTotals | null {
  if (!u) return null;
  const input = count(u.input_tokens);
  const cached = Math.min(count(u.cached_input_tokens), input);
  const output = count(u.output_tokens);
  const total = count(u.total_tokens) || input + output;
  return { input, cached, output, total };
}

function entryOf(key: string, at: number | null, model: string | null, d: CodexTotals): UsageEntry | null {
  const e: UsageEntry = {
    key,
    at,
    model,
    input_tokens: Math.max(0, d.input - d.cached),
    output_tokens: d.output,
    cache_write_tokens: 0,
    cache_read_tokens: d.cached,
  };
  return e.input_tokens + e.output_tokens + e.cache_read_tokens === 0 ? null : e;
}

/** One line of a Codex session file; `state` carries the session, model and totals between lines. */
export function codexUsage(
  line: Record<string, unknown>,
  state: CodexState,
  source: string,
): UsageEntry | null {
  const payload = asObject(line.payload);
  if (!payload) return null;
  if (line.type === 'session_meta') {
    state.session = str(payload.id) ?? state.session;
    state.model = str(payload.model) ?? state.model;
    return null;
  }
  if (line.type === 'turn_context') {
    state.model = str(payload.model) ?? state.model;
    return null;
  }
  if (line.type !== 'event_msg' || payload.type !== 'token_count') return null;
  const info = asObject(payload.info);
  if (!info) return null;
  const at = instant(line.timestamp);
  const model = str(info.model) ?? state.model;
  const session = state.session ?? source;
  const totals = totalsOf(asObject(info.total_token_usage));
  if (totals) {
    const prev = state.totals;
    if (prev && totals.total <= prev.total) return null; // the same totals again
    const grew = prev !== null && totals.input >= prev.input && totals.output >= prev.output;
    state.totals = totals;
    if (prev === null || grew) {
      const base = prev ?? { input: 0, cached: 0, output: 0, total: 0 };
      return entryOf(`cx:${session}:${totals.total}`, at, model, {
        input: totals.input - base.input,
        cached: Math.max(0, totals.cached - base.cached),
        output: totals.output - base.output,
        total: totals.total - base.total,
      });
    }
    // Totals that went down: a new count began (a fork, a reset); the last request is what is new.
  }
  const last = totalsOf(asObject(info.last_token_usage));
  if (!last) return null;
  return entryOf(`cx:${session}:${totals?.total ?? ''}:${at ?? ''}:${last.total}`, at, model, last);
}
