import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import {
  hiddenName,
  installTemp,
  isTempName,
  releaseOld,
  removeTemp,
} from '../../../server/board/atomic-write.ts';

const withDir = async (fn: (dir: string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-atomic-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const temp = (path: string, text: string) => {
  const tmp = hiddenName(path, 'tmp');
  writeFileSync(tmp, text);
  return tmp;
};

describe('atomic writes', () => {
  it('names temp files hidden, beside the target, and never twice the same', () => {
    const a = hiddenName('/x/TASK-1-a.md', 'tmp');
    assert.equal(join(a, '..'), '/x');
    assert.ok(isTempName(basename(a)), `${basename(a)} is hidden from the watcher`);
    assert.notEqual(a, hiddenName('/x/TASK-1-a.md', 'tmp'));
  });

  it('replaces the file with a temp file in one step', () =>
    withDir(async (dir) => {
      const path = join(dir, 'TASK-1-a.md');
      writeFileSync(path, 'one');
      const tmp = temp(path, 'two');
      assert.equal(readFileSync(path, 'utf8'), 'one', 'nothing visible changes before the install');
      assert.equal(installTemp(tmp, path, 'replace'), true);
      assert.equal(readFileSync(path, 'utf8'), 'two');
      assert.deepEqual(readdirSync(dir), ['TASK-1-a.md'], 'no temp file left behind');
    }));

  it('creates only when the name is free, never overwriting, and leaves a refused temp to the caller', () =>
    withDir(async (dir) => {
      const path = join(dir, 'TASK-2-b.md');
      assert.equal(installTemp(temp(path, 'first'), path, 'create'), true);
      assert.deepEqual(readdirSync(dir), ['TASK-2-b.md']);
      const second = temp(path, 'second');
      assert.equal(installTemp(second, path, 'create'), false);
      assert.equal(readFileSync(path, 'utf8'), 'first');
      removeTemp(second);
      assert.deepEqual(readdirSync(dir), ['TASK-2-b.md']);
    }));

  it('drops the hidden name of an old file off the main thread', () =>
    withDir(async (dir) => {
      const held = hiddenName(join(dir, 'TASK-3-c.md'), 'old');
      writeFileSync(held, 'old');
      releaseOld(held);
      releaseOld(null);
      for (let i = 0; i < 100 && existsSync(held); i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(existsSync(held), false);
    }));
});
