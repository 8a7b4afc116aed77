#!/usr/bin/env node
// Runs every test file under test/ with Node's test runner (TypeScript through tsx).
// Node 20's --test does not expand quoted globs, so the files are listed here.
// Usage: node scripts/run-tests.mjs [path-filter ...]   e.g. `npm test -- envelope`
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

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
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
