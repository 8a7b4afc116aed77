import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ToolError } from '../../../server/errors.ts';
import { api, openHub, readTask, removeRepo } from './helpers.ts';

describe('versions and stale writes', () => {
  it('bumps the version on every write and refuses a stale expected_version naming the current one', async () => {
    const hub = openHub();
    try {
      const { task } = await hub.board.create({ title: 'versioned' }, api);
      assert.equal(task.version, 1);
      assert.equal(
        (await hub.board.edit(task.id, { priority: 'P0' }, { expected_version: 1 }, api)).task.version,
        2,
      );
      assert.equal((await hub.board.appendWorkLog(task.id, 'note', {}, api)).task.version, 3);
      await assert.rejects(
        hub.board.edit(task.id, { title: 'lost?' }, { expected_version: 2 }, api),
        (err: unknown) =>
          err instanceof ToolError &&
          err.category === 'validation' &&
          /is at version 3, not 2/.test(err.message) &&
          /expected_version 3/.test(err.message),
      );
      assert.equal(hub.board.show(task.id).title, 'versioned');
      const noop = await hub.board.edit(task.id, { priority: 'P0' }, {}, api);
      assert.deepEqual(noop.changed, []);
      assert.equal(noop.task.version, 3, 'an edit that changes nothing writes nothing');
    } finally {
      hub.close();
      removeRepo(hub.repo);
    }
  });

  it('never loses an update between two hubs on the same files and database', async () => {
    const one = openHub();
    const two = openHub({ repo: one.repo });
    try {
      const { task } = await one.board.create({ title: 'shared' }, api);
      const seenByTwo = two.board.show(task.id);
      await one.board.edit(task.id, { outcome: 'from one' }, { expected_version: seenByTwo.version }, api);
      await assert.rejects(
        two.board.edit(task.id, { outcome: 'from two' }, { expected_version: seenByTwo.version }, api),
        /is at version 2, not 1/,
      );
      assert.equal(two.board.show(task.id).sections.outcome, 'from one');
    } finally {
      two.close();
      one.close();
      removeRepo(one.repo);
    }
  });

  it('reads the file, not a stale index, before writing: a hand edit is never overwritten', async () => {
    const hub = openHub();
    try {
      const { task } = await hub.board.create({ title: 'hand' }, api);
      const path = join(hub.tasksDir, 'TASK-1-hand.md');
      writeFileSync(
        path,
        readTask(hub, 'TASK-1-hand.md')
          .replace('version: 1', 'version: 2')
          .replace('## Outcome\n', '## Outcome\n\nWritten by hand.\n'),
      );
      // The watcher is off: the index still says version 1.
      await assert.rejects(
        hub.board.edit(task.id, { priority: 'P1' }, { expected_version: 1 }, api),
        /version 2, not 1/,
      );
      const edited = await hub.board.edit(task.id, { priority: 'P1' }, { expected_version: 2 }, api);
      assert.equal(edited.task.sections.outcome, 'Written by hand.');
      assert.equal(edited.task.version, 3);
    } finally {
      hub.close();
      removeRepo(hub.repo);
    }
  });
});
