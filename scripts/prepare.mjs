#!/usr/bin/env node
// npm's `prepare` in a clone: `npm ci` and `npm install` run it after installing, and install the MCP
// conformance suite (scripts/conformance has its own lock file and Node 22 binary). It is `prepare`,
// not `postinstall`, because npm runs a package's postinstall wherever the package is installed, and
// the packed `cos` has no scripts/ folder; prepare never runs there. `npm pack` runs prepare too:
// there the suite has nothing to do with the package, so it is skipped.
import { spawnSync } from 'node:child_process';

if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') process.exit(0);
const root = new URL('..', import.meta.url).pathname;
const npm = process.env.npm_execpath;
const args = ['ci', '--prefix', `${root}scripts/conformance`, '--no-audit', '--no-fund', '--loglevel=warn'];
// Under npm, npm_execpath is npm's own CLI script; run by hand, fall back to the npm on PATH.
const r = npm
  ? spawnSync(process.execPath, [npm, ...args], { stdio: 'inherit' })
  : spawnSync('npm', args, { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(r.status ?? 1);
