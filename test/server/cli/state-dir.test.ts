// Starting on a state directory that cannot be written prints one line saying what to do, not a stack
// trace. A read-only bind mount makes it real as root (permission bits would not stop the hub), chmod
// otherwise; where neither can be done the test says so and skips.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { makeReadOnly } from '../../support/read-only.ts';

const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;

describe('a state directory that cannot be written', () => {
  const repo = mkdtempSync(join(tmpdir(), 'cos-ro-state-'));
  const state = join(repo, '.cos');
  mkdirSync(state);
  mkdirSync(join(repo, 'docs', 'tasks'), { recursive: true });
  const readOnly = makeReadOnly(state);
  after(() => {
    readOnly?.undo();
    rmSync(repo, { recursive: true, force: true });
  });
  const skip = readOnly ? false : 'the directory could not be made read-only here (mount refused)';

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
        /^cos: cannot write the state directory .*\.cos \((SQLITE_CANTOPEN|EROFS|EACCES|SQLITE_READONLY)\): make it writable, or point COS_STATE_DIR/,
      );
      assert.doesNotMatch(res.stderr, /\n\s+at /);
    });
  }
});

describe('a state directory that cannot be created', () => {
  // Node's recursive mkdir says ENOENT when a read-only ancestor stops it; the line still says what to do.
  const repo = mkdtempSync(join(tmpdir(), 'cos-ro-repo-'));
  mkdirSync(join(repo, 'docs', 'tasks'), { recursive: true });
  const readOnly = makeReadOnly(repo);
  after(() => {
    readOnly?.undo();
    rmSync(repo, { recursive: true, force: true });
  });
  const skip = readOnly ? false : 'the directory could not be made read-only here (mount refused)';

  test('cos serve says in one line what to do, and exits 1', { skip, timeout: 60_000 }, () => {
    const res = spawnSync(process.execPath, [COS, 'serve', '--port', '0', '--repo', repo], {
      encoding: 'utf8',
      timeout: 50_000,
    });
    assert.equal(res.status, 1, res.stdout + res.stderr);
    assert.match(
      res.stderr,
      /^cos: cannot write the state directory .*\.cos \((EROFS|EACCES)\): make it writable, or point COS_STATE_DIR[^\n]*\n$/,
    );
  });
});
