// Entry of the graph's worker threads (the indexer, and its extraction helpers). Worker threads do
// not inherit the parent's loader hooks, so TypeScript is loaded through tsx here, whether or not the
// hub itself runs under `--import tsx`. tsx's CommonJS hook compiles in this thread; its ESM
// register() would start a hooks thread per worker instead (one more isolate, about 25 MB resident
// each). workerData.entry names the module to run.
const { workerData } = require('node:worker_threads');
require('tsx/cjs/api').register();
require(workerData?.entry === 'extract-worker' ? './extract-worker.ts' : './worker.ts');
