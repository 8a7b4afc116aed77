// Entry of the graph's worker threads (the indexer, and its extraction helpers). Worker threads do
// not inherit the parent's loader hooks, so TypeScript is loaded through tsx's API here, whether or
// not the hub itself runs under `--import tsx`. workerData.entry names the module to run.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const entry = workerData?.entry === 'extract-worker' ? './extract-worker.ts' : './worker.ts';
await import(entry);
