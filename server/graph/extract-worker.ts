// An extraction helper thread: parses and extracts the files it is sent and posts the results back.
// The indexer thread extracts too, so a 2-core machine parses two files at a time; writes stay on
// the indexer's single connection.
import { parentPort } from 'node:worker_threads';
import { extractFile } from './extract/index.ts';
import type { ExtractItem, ExtractReply } from './pool.ts';

const port = parentPort;
if (!port) throw new Error('extract-worker.ts runs only as a worker thread');

port.on('message', async (msg: { id: number; items: ExtractItem[] }) => {
  const results: ExtractReply['results'] = [];
  for (const it of msg.items) {
    const t0 = performance.now();
    try {
      results.push({ ex: await extractFile(it.path, it.language, it.text), ms: performance.now() - t0 });
    } catch (err) {
      results.push({
        ex: {
          nodes: [],
          facts: { refs: [], bindings: [], reexports: [] },
          error: `extraction failed: ${(err as Error).message}`,
        },
        ms: performance.now() - t0,
      });
    }
  }
  port.postMessage({ id: msg.id, results } satisfies ExtractReply);
});
