import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import {
  dirSyncer,
  installTemp,
  isTempName,
  removeTemp,
  writeTemp,
} from '../../../server/board/atomic-write.ts';

const withDir = async (fn: (dir: string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-atomic-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

describe('atomic writes', () => {
  it('writes a hidden temp file beside the target, and replaces the file with it in one step', () =>
    withDir(async (dir) => {
      const path = join(dir, 'TASK-1-a.md');
      writeFileSync(path, 'one');
      const tmp = await writeTemp(path, 'two');
      assert.ok(isTempName(basename(tmp)), `${basename(tmp)} is hidden from the watcher`);
      assert.equal(readFileSync(path, 'utf8'), 'one', 'nothing visible changes before the install');
      assert.equal(installTemp(tmp, path, 'replace'), true);
      assert.equal(readFileSync(path, 'utf8'), 'two');
      assert.deepEqual(readdirSync(dir), ['TASK-1-a.md'], 'no temp file left behind');
    }));

  it('creates only when the name is free, never overwriting, and leaves a refused temp to the caller', () =>
    withDir(async (dir) => {
      const path = join(dir, 'TASK-2-b.md');
      assert.equal(installTemp(await writeTemp(path, 'first'), path, 'create'), true);
      assert.deepEqual(readdirSync(dir), ['TASK-2-b.md']);
      const second = await writeTemp(path, 'second');
      assert.equal(installTemp(second, path, 'create'), false);
      assert.equal(readFileSync(path, 'utf8'), 'first');
      removeTemp(second);
      assert.deepEqual(readdirSync(dir), ['TASK-2-b.md']);
    }));

  it('syncs the directory for every caller, concurrent ones included', () =>
    withDir(async (dir) => {
      const syncer = dirSyncer(dir);
      await Promise.all(Array.from({ length: 20 }, () => syncer.sync()));
      await syncer.sync();
      // A directory that cannot be opened is not fatal (best effort), and never leaves a caller waiting.
      await dirSyncer(join(dir, 'missing')).sync();
    }));
});
