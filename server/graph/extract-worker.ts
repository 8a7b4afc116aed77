// An extraction helper thread: reads, extracts and serializes the files it is sent and posts the
// outcomes back. The indexer thread extracts too, so a 2-core machine parses two files at a time;
// writes stay on the indexer's single connection.
import { parentPort } from 'node:worker_threads';
import { type ExtractOutcome, extractJob, type HelperReply, type HelperRequest } from './pool.ts';

const port = parentPort;
if (!port) throw new Error('extract-worker.ts runs only as a worker thread');

port.on('message', async (msg: HelperRequest) => {
  const outcomes: ExtractOutcome[] = [];
  for (const job of msg.jobs) outcomes.push(await extractJob(msg.root, job));
  port.postMessage({ id: msg.id, outcomes } satisfies HelperReply);
});
