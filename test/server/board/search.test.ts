import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, openHub, removeRepo, type TestHub } from './helpers.ts';

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
