// The JSON text of outgoing JSON-RPC messages. A tools/call result carries its envelope twice
// (structuredContent and the text content); when the envelope's JSON is already known (ok() measured
// it), the answer is spliced from that text instead of serialising the envelope again, twice. A result
// whose JSON is kept ready (tools/list, see listing.ts) is written as it is.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Envelope } from '../../shared/envelope/index.ts';
import { GzipHead } from './compress.ts';

/** The envelope's JSON text, riding on a tools/call result (JSON.stringify skips symbol keys). */
const ENVELOPE_TEXT = Symbol('cos.envelopeText');

interface KnownText {
  text: string;
  /** Its UTF-8 length when it is plain ASCII (ok() knows from measuring it), else undefined. */
  asciiBytes: number | undefined;
}

type Spliceable = CallToolResult & { [ENVELOPE_TEXT]?: KnownText };

/**
 * A tools/call result: the envelope as structuredContent and, the same JSON, as the text content.
 * `bytes`, the text's UTF-8 length when the caller knows it, lets a plain-ASCII answer skip counting.
 */
export function toCallResult(
  envelope: Envelope,
  text = JSON.stringify(envelope),
  bytes?: number,
): CallToolResult {
  const result: Spliceable = {
    content: [{ type: 'text', text }],
    structuredContent: envelope as unknown as Record<string, unknown>,
    isError: !envelope.ok,
  };
  result[ENVELOPE_TEXT] = { text, asciiBytes: bytes === text.length ? bytes : undefined };
  return result;
}

interface Splice {
  /** The envelope's JSON. */
  text: string;
  /** Whether text (and so escaped) is plain ASCII. */
  ascii: boolean;
  /** The same JSON as a JSON string (the text content). */
  escaped: string;
  /** Everything after structuredContent. */
  tail: string;
}

const HEAD = '{"result":{"content":[{"type":"text","text":';
const MIDDLE = '}],"structuredContent":';

/** A result kept ready: its JSON text, and the gzip of the answers made of it once one is asked for. */
interface Ready {
  json: string;
  gzip?: GzipHead;
}
const READY = Symbol('cos.readyResult');

/** A result to send as this JSON text, byte for byte (it must be the JSON of an object). Keep and reuse it. */
export function readyResult(json: string): Record<string, unknown> {
  return { [READY]: { json } satisfies Ready };
}

function readyOf(message: unknown): Ready | undefined {
  return (message as { result?: { [READY]?: Ready } }).result?.[READY];
}

/** The JSON-RPC answer's text around its result: everything before the id, and the id to the end. */
function readyParts(message: unknown, ready: Ready): [head: string, tail: string] {
  const m = message as { jsonrpc?: unknown; id?: unknown };
  return [`{"result":${ready.json},"jsonrpc":${JSON.stringify(m.jsonrpc)},"id":`, `${JSON.stringify(m.id)}}`];
}

/** The message's JSON when its result is kept ready, else undefined. */
function readyJson(message: unknown): string | undefined {
  const ready = readyOf(message);
  return ready && readyParts(message, ready).join('');
}

/**
 * The gzip of an answer whose result is kept ready, with the result compressed only once for all the
 * answers made of it (see GzipHead); undefined for any other message.
 */
export function readyGzip(message: unknown): Buffer | undefined {
  const ready = readyOf(message);
  if (!ready) return undefined;
  const [head, tail] = readyParts(message, ready);
  ready.gzip ??= new GzipHead(head);
  return ready.gzip.with(tail);
}

/** The parts of a tools/call answer whose envelope text is known, or undefined for any other message. */
function spliceOf(message: unknown): Splice | undefined {
  const m = message as { jsonrpc?: unknown; id?: unknown; result?: Spliceable };
  const result = m.result;
  const known = result?.[ENVELOPE_TEXT];
  const text = known?.text;
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
    ascii: known!.asciiBytes !== undefined,
    escaped: JSON.stringify(text),
    tail: `,"isError":${result!.isError === true}},"jsonrpc":${JSON.stringify(m.jsonrpc)},"id":${JSON.stringify(m.id)}}`,
  };
}

/** The JSON of one outgoing message: `JSON.stringify(message)`, spliced for a known envelope. */
export function messageJson(message: unknown): string {
  const splice = spliceOf(message);
  if (!splice) return readyJson(message) ?? JSON.stringify(message);
  return `${HEAD}${splice.escaped}${MIDDLE}${splice.text}${splice.tail}`;
}

/**
 * The same JSON as messageJson, as the body of an HTTP answer. A tools/call answer is written piece by
 * piece into one Buffer: joined as a string it would be copied twice more on the JavaScript heap (to
 * flatten it, then to put the HTTP head in front of it), and every call would pay for those in GC.
 */
export function messageBody(message: unknown): string | Buffer {
  const splice = spliceOf(message);
  if (!splice) return readyJson(message) ?? JSON.stringify(message);
  const { text, escaped, tail, ascii } = splice;
  // Plain ASCII escapes to plain ASCII: its byte counts are its lengths, and latin1 copies it as it is.
  const encoding = ascii ? 'latin1' : 'utf8';
  const body = Buffer.allocUnsafe(
    HEAD.length +
      (ascii ? escaped.length : Buffer.byteLength(escaped)) +
      MIDDLE.length +
      (ascii ? text.length : Buffer.byteLength(text)) +
      Buffer.byteLength(tail),
  );
  let at = body.write(HEAD, 0, 'latin1');
  at += body.write(escaped, at, encoding);
  at += body.write(MIDDLE, at, 'latin1');
  at += body.write(text, at, encoding);
  body.write(tail, at);
  return body;
}
