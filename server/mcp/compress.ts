// MCP answers over 1 KB compressed when the client accepts it, as @fastify/compress does for every other
// route: the transport writes its own answers (one JSON body each), so it compresses them itself, in one
// synchronous call per answer (the answer is already whole in memory, and small: the agent budget caps
// a tool's envelope at about 32 KB, tools/list is under 40 KB).
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

/** Answers smaller than this go as they are: compressing them saves less than the header costs. */
export const COMPRESS_THRESHOLD = 1024;

/** The encoding to answer with for an Accept-Encoding header: brotli, else gzip, else none (q=0 refuses). */
export function negotiate(header: string | string[] | undefined): Encoding | undefined {
  if (!header) return undefined;
  const accepted = new Set<string>();
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (token && !(q && Number(q.slice(2)) === 0)) accepted.add(token);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return undefined;
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
