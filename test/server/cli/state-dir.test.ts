// Starting on a state directory that cannot be written prints one line saying what to do, not a stack
// trace. A read-only bind mount makes it real (as root, permission bits would not stop the hub); where
// mounting is refused the test says so and skips.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;

function readOnly(dir: string): boolean {
  try {
    execFileSync('mount', ['--bind', dir, dir], { stdio: 'ignore' });
  } catch {
    return false;
  }
  try {
    execFileSync('mount', ['-o', 'remount,bind,ro', dir], { stdio: 'ignore' });
    return true;
  } catch {
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return false;
  }
}

describe('a state directory that cannot be written', () => {
  const repo = mkdtempSync(join(tmpdir(), 'cos-ro-state-'));
  const state = join(repo, '.cos');
  mkdirSync(state);
  mkdirSync(join(repo, 'docs', 'tasks'), { recursive: true });
  const mounted = readOnly(state);
  after(() => {
    if (mounted) execFileSync('umount', [state], { stdio: 'ignore' });
    rmSync(repo, { recursive: true, force: true });
  });
  const skip = mounted ? false : 'a read-only bind mount needs root, which this run does not have';

  // (`cos doctor` reports it among its checks, without a stack trace either.)
  for (const command of [['serve', '--port', '0'], ['index']]) {
    test(`cos ${command[0]} says in one line what to do, and exits 1`, { skip, timeout: 60_000 }, () => {
      const res = spawnSync(process.execPath, [COS, ...command, '--repo', repo], {
        encoding: 'utf8',
        timeout: 50_000,
      });
      assert.equal(res.status, 1, res.stdout + res.stderr);
      const lines = res.stderr.trim().split('\n');
      assert.equal(lines.length, 1, res.stderr);
      assert.match(
        lines[0]!,
        /^cos: cannot write the state directory .*\.cos \((SQLITE_CANTOPEN|EROFS|SQLITE_READONLY)\): make it writable, or point COS_STATE_DIR/,
      );
      assert.doesNotMatch(res.stderr, /\n\s+at /);
    });
  }
});
