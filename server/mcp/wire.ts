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

interface Splice {
  /** The envelope's JSON. */
  text: string;
  /** The same JSON as a JSON string (the text content). */
  escaped: string;
  /** Everything after structuredContent. */
  tail: string;
}

const HEAD = '{"result":{"content":[{"type":"text","text":';
const MIDDLE = '}],"structuredContent":';

/** The parts of a tools/call answer whose envelope text is known, or undefined for any other message. */
function spliceOf(message: unknown): Splice | undefined {
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
    return undefined;
  }
  return {
    text,
    escaped: JSON.stringify(text),
    tail: `,"isError":${result!.isError === true}},"jsonrpc":${JSON.stringify(m.jsonrpc)},"id":${JSON.stringify(m.id)}}`,
  };
}

/** The JSON of one outgoing message: `JSON.stringify(message)`, spliced for a known envelope. */
export function messageJson(message: unknown): string {
  const splice = spliceOf(message);
  if (!splice) return JSON.stringify(message);
  return `${HEAD}${splice.escaped}${MIDDLE}${splice.text}${splice.tail}`;
}

/**
 * The same JSON as messageJson, as the body of an HTTP answer. A tools/call answer is written piece by
 * piece into one Buffer: joined as a string it would be copied twice more on the JavaScript heap (to
 * flatten it, then to put the HTTP head in front of it), and every call would pay for those in GC.
 */
export function messageBody(message: unknown): string | Buffer {
  const splice = spliceOf(message);
  if (!splice) return JSON.stringify(message);
  const { text, escaped, tail } = splice;
  const body = Buffer.allocUnsafe(
    HEAD.length +
      Buffer.byteLength(escaped) +
      MIDDLE.length +
      Buffer.byteLength(text) +
      Buffer.byteLength(tail),
  );
  let at = body.write(HEAD, 0, 'latin1');
  at += body.write(escaped, at);
  at += body.write(MIDDLE, at, 'latin1');
  at += body.write(text, at);
  body.write(tail, at);
  return body;
}
