#!/usr/bin/env node
// Runs every test file under test/ with Node's test runner (TypeScript through tsx).
// Node 20's --test does not expand quoted globs, so the files are listed here.
// Usage: node scripts/run-tests.mjs [path-filter ...]   e.g. `npm test -- envelope`
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { startCluster } from '../test/support/pg-cluster.mjs';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (name.endsWith('.test.ts')) out.push(relative(root, full));
  }
  return out;
}

const files = walk(join(root, 'test'))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();
if (files.length === 0) {
  process.stderr.write(`no test files match ${filters.join(' ')}\n`);
  process.exit(1);
}
// A test that hangs fails after 5 minutes instead of holding CI until its 90-minute limit; suites that
// need longer say so with their own { timeout }.
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files];

// One throwaway PostgreSQL cluster for the whole run: each team test makes a database of its own in it
// (test/support/postgres.ts). Without the server installed, the team tests start their own and fail
// naming the package; every other test runs as before.
let cluster;
const env = { ...process.env };
const needsPg = files.some((f) => /team|postgres/.test(f));
if (needsPg && !env.COS_TEST_PG_ADMIN_URL) {
  try {
    cluster = await startCluster();
    env.COS_TEST_PG_ADMIN_URL = cluster.adminUrl;
  } catch (err) {
    process.stderr.write(`run-tests: no shared PostgreSQL cluster: ${err.message}\n`);
  }
}
const stop = () => cluster?.stop();
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  stop();
  process.exit(signal ? 1 : (code ?? 1));
});
