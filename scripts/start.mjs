#!/usr/bin/env node
// npm start: build the SPA once if web/dist is missing (a fresh clone), then run `cos serve` with any
// extra arguments. A stale build is not rebuilt here: `npm run build` does that on purpose.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
if (!existsSync(`${root}web/dist/index.html`)) {
  process.stdout.write('web/dist is missing: building the SPA first (npm run build)\n');
  const build = spawnSync(process.execPath, [`${root}node_modules/vite/bin/vite.js`, 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
// Same process, so signals reach the hub directly and it closes gracefully.
process.argv = [process.argv[0] ?? 'node', `${root}server/bin/cos.mjs`, 'serve', ...process.argv.slice(2)];
await import('../server/bin/cos.mjs');
