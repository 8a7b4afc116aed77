// The JSON text of outgoing JSON-RPC messages. A tools/call result carries its envelope twice
// (structuredContent and the text content); when the envelope's JSON is already known (ok() measured
// it), the answer is spliced from that text instead of serialising the envelope again, twice.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Envelope } from '../../shared/envelope/index.ts';

/** The envelope's JSON text, riding on a tools/call result (JSON.stringify skips symbol keys). */
const ENVELOPE_TEXT = Symbol('cos.envelopeText');

type Spliceable = CallToolResult & { [ENVELOPE_TEXT]?: string };

/** A tools/call result: the envelope as structuredContent and, the same JSON, as the text content. */
export function toCallResult(envelope: Envelope, text = JSON.stringify(envelope)): CallToolResult {
  const result: Spliceable = {
    content: [{ type: 'text', text }],
    structuredContent: envelope as unknown as Record<string, unknown>,
    isError: !envelope.ok,
  };
  result[ENVELOPE_TEXT] = text;
  return result;
}

/** The JSON of one outgoing message: `JSON.stringify(message)`, spliced for a known envelope. */
export function messageJson(message: unknown): string {
  const m = message as { jsonrpc?: unknown; id?: unknown; result?: Spliceable };
  const result = m.result;
  const text = result?.[ENVELOPE_TEXT];
  if (
    text === undefined ||
    Object.keys(m).length !== 3 ||
    Object.keys(result!).length !== 3 ||
    result!.content.length !== 1 ||
    result!.content[0]!.type !== 'text' ||
    result!.content[0]!.text !== text
  ) {
    return JSON.stringify(message);
  }
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text},"isError":${result!.isError === true}},"jsonrpc":${JSON.stringify(m.jsonrpc)},"id":${JSON.stringify(m.id)}}`;
}
