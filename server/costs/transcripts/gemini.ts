// Gemini CLI's chat recordings (`~/.gemini/tmp/<project hash>/chats/session-….json`): one JSON
// document, rewritten as the session goes, with `sessionId` and `messages`; each model message
// (`type: "gemini"`) has its `id`, `model` and `tokens` {input, output, cached, thoughts, tool, total}.
// Gemini's input (promptTokenCount) includes the cached part and excludes tool-use prompt tokens;
// thinking is billed as output. A file written as JSONL (one record per line) is read the same way.
import { asObject, count, instant, isEmpty, str, type UsageEntry } from './usage.ts';

export function geminiMessageUsage(message: Record<string, unknown>, session: string): UsageEntry | null {
  const tokens = asObject(message.tokens);
  const id = str(message.id);
  if (!tokens || !id) return null;
  const input = count(tokens.input);
  const cached = Math.min(count(tokens.cached), input);
  const entry: UsageEntry = {
    key: `gm:${session}:${id}`,
    at: instant(message.timestamp),
    model: str(message.model),
    input_tokens: input - cached + count(tokens.tool),
    output_tokens: count(tokens.output) + count(tokens.thoughts),
    cache_write_tokens: 0,
    cache_read_tokens: cached,
  };
  return isEmpty(entry) ? null : entry;
}

/** Every model message of a whole recording; `source` names the session when the file does not. */
export function geminiDocumentUsage(doc: Record<string, unknown>, source: string): UsageEntry[] {
  const session = str(doc.sessionId) ?? source;
  const messages = Array.isArray(doc.messages) ? doc.messages : [];
  const out: UsageEntry[] = [];
  for (const m of messages) {
    const o = asObject(m);
    const e = o ? geminiMessageUsage(o, session) : null;
    if (e) out.push(e);
  }
  return out;
}
