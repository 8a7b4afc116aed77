import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listMigrations, openDatabase } from '../../../server/db/open.ts';
import { api, openHub, removeRepo, type TestHub, tempRepo } from './helpers.ts';

describe('search', () => {
  let hub: TestHub;
  before(async () => {
    hub = openHub();
    await hub.board.create({ title: 'Watcher misses renames', outcome: 'Renames are seen.' }, api);
    await hub.board.create(
      { title: 'Unrelated chore', outcome: 'The watcher is mentioned once, deep in the body text here.' },
      api,
    );
    await hub.board.create(
      { title: 'Cursor paging', acceptance: 'Given a board\nWhen paging by cursor\nThen every card is seen' },
      api,
    );
    const old = (await hub.board.create({ title: 'Old watcher idea' }, api)).task.id;
    await hub.board.move(old, 'archive', {}, api);
  });
  after(() => {
    hub.close();
    removeRepo(hub.repo);
  });

  it('ranks a title match above a body match (bm25) and marks the match in a snippet', () => {
    const { results } = hub.board.search('watcher');
    assert.deepEqual(
      results.map((r) => r.id),
      ['TASK-1', 'TASK-2'],
    );
    assert.ok((results[0]?.score ?? 0) > (results[1]?.score ?? 0));
    assert.match(results[1]?.snippet ?? '', /\*\*watcher\*\*/i);
    assert.equal(results[0]?.path, 'docs/tasks/TASK-1-watcher-misses-renames.md');
  });

  it('stems words and treats the last word as a prefix, and leaves archived tasks out unless asked', () => {
    assert.deepEqual(
      hub.board.search('pag').results.map((r) => r.id),
      ['TASK-3'],
    );
    assert.deepEqual(
      hub.board.search('renamed').results.map((r) => r.id),
      ['TASK-1'],
    );
    assert.deepEqual(
      hub.board
        .search('watcher', { include_archive: true })
        .results.map((r) => r.id)
        .sort(),
      ['TASK-1', 'TASK-2', 'TASK-4'],
    );
    assert.deepEqual(
      hub.board.search('watcher', { status: 'archive' }).results.map((r) => r.id),
      ['TASK-4'],
    );
  });

  it('treats FTS syntax in the query as plain words', () => {
    assert.deepEqual(hub.board.search('"watcher" OR (NEAR').results.length, 0);
    assert.equal(hub.board.search('watcher-misses').results[0]?.id, 'TASK-1');
  });

  it('pages with next_offset and sees edits immediately', async () => {
    const first = hub.board.search('watcher', { limit: 1 });
    assert.equal(first.next_offset, 1);
    assert.equal(hub.board.search('watcher', { limit: 1, offset: 1 }).results[0]?.id, 'TASK-2');
    await hub.board.edit('TASK-3', { title: 'Cursor paging for the watcher view' }, {}, api);
    assert.equal(hub.board.search('watcher').results.length, 3);
    assert.equal(hub.board.search('work log').results.length, 0, 'section headings are not content');
  });
});

describe('search on a board indexed before the prefix index (migration 9)', () => {
  it('finds tasks by a one- or two-character last word once the hub has migrated', async () => {
    const repo = tempRepo();
    try {
      const first = openHub({ repo });
      await first.board.create({ title: 'Load task 3-31' }, api);
      await first.board.create({ title: 'Load task 4-41', outcome: 'Step 35 went well.' }, api);
      const dbPath = first.dbPath;
      first.close();
      // The database as the migrations before 9 left it: the index without prefixes, built from the rows.
      const db = openDatabase(dbPath, { migrate: false });
      db.exec('DROP TABLE tasks_fts');
      db.exec(
        listMigrations()
          .find((m) => m.version === 2)!
          .sql.match(/CREATE VIRTUAL TABLE tasks_fts[^;]*;/)![0],
      );
      db.exec("INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild')");
      db.exec('DELETE FROM schema_migrations WHERE version = 9');
      assert.doesNotMatch(
        String(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'tasks_fts'").pluck().get()),
        /prefix/,
      );
      db.close();

      const hub = openHub({ repo });
      try {
        assert.match(
          String(hub.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'tasks_fts'").pluck().get()),
          /prefix = '1 2'/,
        );
        const ids = (q: string) => hub.board.search(q).results.map((r) => r.id);
        assert.deepEqual(ids('load 3'), ['TASK-1', 'TASK-2'], 'TASK-2 by "35" in its body');
        assert.deepEqual(ids('load 31'), ['TASK-1']);
        assert.deepEqual(ids('task 4'), ['TASK-2']);
        assert.deepEqual(ids('load 5'), []);
        // Later writes keep the new index in step through the triggers.
        await hub.board.create({ title: 'Load task 5-51' }, api);
        assert.deepEqual(ids('load 5'), ['TASK-3']);
      } finally {
        hub.close();
      }
    } finally {
      removeRepo(repo);
    }
  });
});
