// Starts a worker thread from its entry module, the same call whether the hub runs from a clone's
// TypeScript sources (through tsx) or from the package's built JavaScript. Callers name the entry the
// way bundlers recognise it, a `new URL` of the module's path relative to their own module's URL: the
// build (scripts/build-server.mjs) makes each such module an entry of its own and rewrites the URL to
// the built file, so in a package this is a plain Worker on JavaScript.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startThread(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  // From the sources: worker threads do not inherit the parent's loader hooks, so the thread loads tsx
  // itself. Its CommonJS hook compiles in this thread; its ESM register() would start a hooks thread
  // per worker instead (one more isolate, about 25 MB resident each).
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const code = `require(${JSON.stringify(tsx)}).register();\nrequire(${JSON.stringify(fileURLToPath(entry))});\n`;
  return new Worker(code, { ...options, eval: true });
}
