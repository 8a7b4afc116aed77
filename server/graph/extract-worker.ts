// An extraction helper thread: reads, extracts and serializes the files it is sent and posts the
// outcomes back. On a 2-core machine one helper parses while an indexer thread writes on its single
// connection. The helpers are the process's (helpers.ts): each indexer thread that leases them sends
// this thread a port of its own, and every port is served alike.
// The first helper also writes resolution's batches when an indexer asks (edge-writes.ts): the
// indexer resolves the next batch meanwhile, and the helpers have no files to extract by then.
import { parentPort } from 'node:worker_threads';
import { type EdgeWrites, edgeWrites } from './edge-writes.ts';
import { extractJob } from './extract-job.ts';
import type { HelperPortMessage } from './helpers.ts';
import type { ExtractOutcome, HelperReply, HelperRequest } from './pool.ts';

const port = parentPort;
if (!port) throw new Error('extract-worker.ts runs only as a worker thread');

port.on('message', (msg: HelperPortMessage) => {
  if (msg.type !== 'port') return;
  const indexer = msg.port;
  // Writes are done one at a time, in the order they came: a batch's stubs before the next one's edges.
  let writes = Promise.resolve();
  let writers: EdgeWrites | undefined;
  indexer.on('message', async (req: HelperRequest) => {
    if (req.type === 'write') {
      writes = writes.then(async () => {
        writers ??= edgeWrites();
        let reply: HelperReply;
        try {
          writers.write(req.db, req.batch);
          reply = { id: req.id, written: true };
        } catch (err) {
          reply = { id: req.id, error: (err as Error).message };
        }
        indexer.postMessage(reply);
      });
      return;
    }
    const outcomes: ExtractOutcome[] = [];
    for (const job of req.jobs) outcomes.push(await extractJob(req.root, job));
    indexer.postMessage({ id: req.id, outcomes } satisfies HelperReply);
  });
  // The indexer's end closes when its thread stops; the port then goes with it.
  indexer.once('close', () => {
    indexer.removeAllListeners();
    void writes.then(() => writers?.close());
  });
});
