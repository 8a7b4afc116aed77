// MCP answers over 1 KB compressed when the client accepts it, as @fastify/compress does for every other
// route: the transport writes its own answers (one JSON body each), so it compresses them itself, in one
// synchronous call per answer (the answer is already whole in memory, and small: the agent budget caps
// a tool's envelope at about 32 KB, tools/list is under 40 KB).
import { brotliCompressSync, constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

/** Answers smaller than this go as they are: compressing them saves less than the header costs. */
export const COMPRESS_THRESHOLD = 1024;

/** The encodings an Accept-Encoding header accepts (q=0 refuses one; `*` stands for gzip here). */
export function accepted(header: string | string[] | undefined): Set<string> {
  const out = new Set<string>();
  if (!header) return out;
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (token && !(q && Number(q.slice(2)) === 0)) out.add(token === '*' ? 'gzip' : token);
  }
  return out;
}

/** The encoding to answer with: brotli, else gzip, else none. */
export function negotiate(header: string | string[] | undefined): Encoding | undefined {
  const ok = accepted(header);
  return ok.has('br') ? 'br' : ok.has('gzip') ? 'gzip' : undefined;
}

// Brotli at quality 4, as @fastify/compress recommends: near gzip's speed, smaller output.
const BROTLI = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};

/** The body compressed with `encoding`. */
export function compressBody(body: string | Buffer, encoding: Encoding): Buffer {
  const input = typeof body === 'string' ? Buffer.from(body) : body;
  return encoding === 'br' ? brotliCompressSync(input, BROTLI) : gzipSync(input);
}

/**
 * A gzip body made of a part compressed once and kept (`head`, e.g. tools/list up to the JSON-RPC id) and
 * a short part compressed per answer (`tail`, the id). The kept part ends with a full flush, so the
 * tail's deflate blocks, made by a fresh compressor, follow it as one valid stream; the trailer's CRC
 * continues from the head's. One gzip member, as any gzip reader expects.
 */
export class GzipHead {
  private readonly deflated: Buffer;
  private readonly crc: number;
  private readonly length: number;

  constructor(head: string) {
    const bytes = Buffer.from(head);
    this.deflated = deflateRawSync(bytes, { finishFlush: constants.Z_FULL_FLUSH });
    this.crc = crc32(bytes);
    this.length = bytes.length;
  }

  /** The gzip of head + tail. */
  with(tail: string): Buffer {
    const bytes = Buffer.from(tail);
    const rest = deflateRawSync(bytes);
    const trailer = Buffer.allocUnsafe(8);
    trailer.writeUInt32LE(crc32(bytes, this.crc), 0);
    trailer.writeUInt32LE((this.length + bytes.length) % 2 ** 32, 4);
    return Buffer.concat([GZIP_HEADER, this.deflated, rest, trailer]);
  }
}

/** Magic, deflate, no flags, no mtime, no extra flags, unknown OS (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
