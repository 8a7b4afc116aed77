// The load suite in its short CI mode: a real hub process, 8 MCP sessions mixing reads and writes for
// 8 seconds. `npm run bench:load` runs 32 sessions for 60 s and checks latency and memory too.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runLoad } from '../../scripts/lib/load.ts';

test('8 sessions mixing reads and writes: no failed call, and descriptors are released after', {
  timeout: 180_000,
}, async () => {
  const repo = mkdtempSync(join(tmpdir(), 'cos-load-ci-'));
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  writeFileSync(join(repo, 'docs/guide.md'), '# Guide\n\n## Load\n\nA guide for the load test.\n');
  const r = await runLoad({ repo, sessions: 8, seconds: Number(process.env.COS_SOAK_SECONDS ?? 8) }).finally(
    () => rmSync(repo, { recursive: true, force: true }),
  );
  assert.deepEqual(r.failures, [], 'no call failed apart from the deliberately bad ones');
  assert.ok(r.calls > 100, `calls made: ${r.calls}`);
  assert.ok(r.expectedErrors > 0, 'the bad calls were answered validation/not_found');
  assert.ok(
    r.fds.after <= r.fds.before + 2,
    `open descriptors ${r.fds.after} after vs ${r.fds.before} before: ${r.fdsLeft.join(', ')}`,
  );
});
