// An extraction helper thread: reads, extracts and serializes the files it is sent and posts the
// outcomes back. On a 2-core machine one helper parses while the indexer thread writes on its
// single connection.
import { parentPort } from 'node:worker_threads';
import { extractJob } from './extract-job.ts';
import type { ExtractOutcome, HelperReply, HelperRequest } from './pool.ts';

const port = parentPort;
if (!port) throw new Error('extract-worker.ts runs only as a worker thread');

port.on('message', async (msg: HelperRequest) => {
  const outcomes: ExtractOutcome[] = [];
  for (const job of msg.jobs) outcomes.push(await extractJob(msg.root, job));
  port.postMessage({ id: msg.id, outcomes } satisfies HelperReply);
});
