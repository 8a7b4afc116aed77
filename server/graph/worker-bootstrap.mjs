// Entry of the indexer's worker thread. Worker threads do not inherit the parent's loader hooks, so
// TypeScript is loaded through tsx's API here, whether or not the hub itself runs under `--import tsx`.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
