import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createFileAtomic, writeFileAtomic } from '../../../server/board/atomic-write.ts';

describe('atomic writes', () => {
  it('replaces a file in one step and leaves no temp file behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cos-atomic-'));
    try {
      const path = join(dir, 'TASK-1-a.md');
      writeFileAtomic(path, 'one');
      writeFileAtomic(path, 'two');
      assert.equal(readFileSync(path, 'utf8'), 'two');
      assert.deepEqual(readdirSync(dir), ['TASK-1-a.md']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates only when the name is free, never overwriting', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cos-atomic-'));
    try {
      const path = join(dir, 'TASK-2-b.md');
      assert.equal(createFileAtomic(path, 'first'), true);
      assert.equal(createFileAtomic(path, 'second'), false);
      assert.equal(readFileSync(path, 'utf8'), 'first');
      assert.deepEqual(readdirSync(dir), ['TASK-2-b.md']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
