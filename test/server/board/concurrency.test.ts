import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  agent,
  api,
  boardStore,
  disagreements,
  openHub,
  readTask,
  removeRepo,
  runWorker,
  taskFiles,
  tempRepo,
  writeBoardJson,
} from './helpers.ts';

const HAND_WRITTEN = '---\nid: TASK-1\ntitle: Written by hand\nstatus: icebox\n---\n\n## Outcome\n\nmine\n';

describe('concurrency', () => {
  it('gives unique ids to concurrent creates in one process', async () => {
    const hub = openHub();
    try {
      const ids = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          hub.board.create({ title: `c${i}` }, api).then((c) => c.task.id),
        ),
      );
      assert.equal(new Set(ids).size, 100);
      assert.equal(taskFiles(hub).length, 100);
    } finally {
      hub.close();
      removeRepo(hub.repo);
    }
  });

  it('takes the next id when a file with the new name already exists but is not indexed yet', async () => {
    const hub = openHub();
    try {
      writeFileSync(join(hub.tasksDir, 'TASK-1-same-title.md'), HAND_WRITTEN);
      const created = await hub.board.create({ title: 'Same title' }, api);
      assert.equal(created.task.id, 'TASK-2');
      assert.equal(readTask(hub, 'TASK-1-same-title.md'), HAND_WRITTEN, 'never overwritten');
      assert.deepEqual(
        readdirSync(hub.tasksDir).filter((n) => n.startsWith('.')),
        [],
        'no temp file left',
      );
    } finally {
      hub.close();
      removeRepo(hub.repo);
    }
  });

  it('writes two changes to one task from two hubs at once one after the other, losing neither', {
    // Two hubs on one clone share its files and its hub.db: not how a team runs (one hub per clone;
    // test/server/team/board.test.ts races hubs on two clones), and their record-then-file order can
    // make each refuse the other's half-written change until the retries run out.
    skip: boardStore === 'postgres' ? 'two hubs on one clone is not a team deployment' : false,
  }, async () => {
    const one = openHub();
    const two = openHub({ repo: one.repo });
    try {
      const { task } = await one.board.create({ title: 'shared' }, api);
      // Started in the same tick: both read version 1 before either file is written, so the second to
      // reach its commit finds the file changed under it and writes again on top of the first.
      const [a, b] = await Promise.all([
        one.board.appendWorkLog(task.id, 'from one', {}, api),
        two.board.appendWorkLog(task.id, 'from two', {}, api),
      ]);
      assert.deepEqual([a.task.version, b.task.version].sort(), [2, 3]);
      const text = readTask(one, 'TASK-1-shared.md');
      assert.match(text, /from one/);
      assert.match(text, /from two/);
      assert.match(text, /version: 3/);
      // The same race with expected_version: exactly one of the two edits is refused.
      const results = await Promise.allSettled([
        one.board.edit(task.id, { outcome: 'one' }, { expected_version: 3 }, api),
        two.board.edit(task.id, { outcome: 'two' }, { expected_version: 3 }, api),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.match(String(refused.reason), /is at version 4, not 3/);
      one.board.reconcile();
      assert.deepEqual(disagreements(one), []);
    } finally {
      two.close();
      one.close();
      removeRepo(one.repo);
    }
  });

  it('gives unique ids to concurrent creates from four processes on one database', async () => {
    const repo = tempRepo();
    const hub = openHub({ repo });
    try {
      const reports = await Promise.all(
        ['p1', 'p2', 'p3', 'p4'].map((p) => runWorker(repo, 'create', [p], 40)),
      );
      const ids = reports.flatMap((r) => r.created);
      assert.deepEqual(
        reports.flatMap((r) => r.internal),
        [],
      );
      assert.equal(ids.length, 160);
      assert.equal(new Set(ids).size, 160, 'no id handed out twice');
      assert.equal(taskFiles(hub).length, 160);
      hub.board.reconcile();
      assert.deepEqual(disagreements(hub), []);
    } finally {
      hub.close();
      removeRepo(repo);
    }
  });

  it('never hands one task to two agents claiming in parallel through the service', async () => {
    const hub = openHub();
    try {
      writeBoardJson(hub.repo, { wip: { in_progress: null } });
      for (let i = 0; i < 40; i++)
        await hub.board.create({ title: `r${i}`, ready: true, priority: i % 2 ? 'P1' : 'P3' }, api);
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => hub.board.claimNext(agent(`agent-${i}`))),
      );
      const claimed = results.filter((r) => r.claimed).map((r) => r.task?.id);
      assert.equal(claimed.length, 40);
      assert.equal(new Set(claimed).size, 40);
      assert.equal(results.filter((r) => !r.claimed).length, 20);
      // Highest priority first: the first 20 claims are the P1 tasks.
      assert.ok(results.slice(0, 20).every((r) => r.task?.priority === 'P1'));
    } finally {
      hub.close();
      removeRepo(hub.repo);
    }
  });

  it('never hands one task to two processes claiming at once', async () => {
    const repo = tempRepo();
    writeBoardJson(repo, { wip: { in_progress: null } });
    const hub = openHub({ repo });
    try {
      for (let i = 0; i < 120; i++) await hub.board.create({ title: `r${i}`, ready: true }, api);
      const reports = await Promise.all(['a', 'b', 'c', 'd'].map((p) => runWorker(repo, 'claim', [p], 0)));
      const claimed = reports.flatMap((r) => r.claims.map((c) => c.id));
      assert.deepEqual(
        reports.flatMap((r) => r.internal),
        [],
      );
      assert.equal(claimed.length, 120);
      assert.equal(new Set(claimed).size, 120, 'no task claimed twice');
      assert.ok(
        reports.filter((r) => r.claims.length > 0).length >= 2,
        'the claims were really spread over processes',
      );
      hub.board.reconcile();
      assert.deepEqual(disagreements(hub), []);
      assert.equal(hub.board.board().columns.find((c) => c.status === 'in_progress')?.count, 120);
    } finally {
      hub.close();
      removeRepo(repo);
    }
  });

  it('respects dependencies when claiming: a task waits until what it depends on is complete', async () => {
    const hub = openHub();
    try {
      const base = (await hub.board.create({ title: 'base', ready: true, priority: 'P3' }, api)).task.id;
      await hub.board.create({ title: 'top', ready: true, priority: 'P0', depends_on: [base] }, api);
      assert.equal(hub.board.ready().tasks[0]?.claimable, true);
      assert.equal(
        (await hub.board.claimNext(agent('a'))).task?.id,
        base,
        'the P0 task waits for its dependency',
      );
      assert.equal((await hub.board.claimNext(agent('b'))).claimed, false);
      await hub.board.move(base, 'complete', {}, api);
      assert.equal((await hub.board.claimNext(agent('b'))).task?.title, 'top');
      await assert.rejects(hub.board.claimNext({ source: 'mcp' }), /agent_session is required/);
    } finally {
      hub.close();
      removeRepo(hub.repo);
    }
  });
});
