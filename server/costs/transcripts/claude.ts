// Claude Code's transcript: JSONL, one line per content block of each assistant message, every line
// carrying the message's `usage` (input, output, cache creation, cache read) and `model`. A message
// counts once, by its message id and request id (what the API billed once); a resumed session's file
// repeats earlier messages with the same ids.
import { asObject, count, instant, isEmpty, str, type UsageEntry } from './usage.ts';

export function claudeUsage(line: Record<string, unknown>): UsageEntry | null {
  if (line.type !== 'assistant') return null;
  const message = asObject(line.message);
  const usage = asObject(message?.usage);
  if (!message || !usage) return null;
  const model = str(message.model);
  // Claude Code's own notes ("<synthetic>": an interruption, an API error's text) cost nothing.
  if (model === '<synthetic>') return null;
  const id = str(message.id);
  const request = str(line.requestId) ?? str(line.request_id);
  const uuid = str(line.uuid);
  const key = id ? `cc:${id}:${request ?? ''}` : uuid ? `cc:line:${uuid}` : null;
  if (key === null) return null;
  const entry: UsageEntry = {
    key,
    at: instant(line.timestamp),
    model,
    input_tokens: count(usage.input_tokens),
    output_tokens: count(usage.output_tokens),
    cache_write_tokens: count(usage.cache_creation_input_tokens),
    cache_read_tokens: count(usage.cache_read_input_tokens),
  };
  return isEmpty(entry) ? null : entry;
}
