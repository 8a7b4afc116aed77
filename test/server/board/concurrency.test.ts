import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  agent,
  api,
  disagreements,
  openHub,
  removeRepo,
  runWorker,
  taskFiles,
  tempRepo,
  writeBoardJson,
} from './helpers.ts';

describe('concurrency', () => {
  it('gives unique ids to concurrent creates in one process', async () => {
    const hub = openHub();
    try {
      const ids = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          Promise.resolve().then(() => hub.board.create({ title: `c${i}` }, api).task.id),
        ),
      );
      assert.equal(new Set(ids).size, 100);
      assert.equal(taskFiles(hub).length, 100);
    } finally {
      hub.close();
      removeRepo(hub.repo);
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
        hub.board.create({ title: `r${i}`, ready: true, priority: i % 2 ? 'P1' : 'P3' }, api);
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          Promise.resolve().then(() => hub.board.claimNext(agent(`agent-${i}`))),
        ),
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
      for (let i = 0; i < 120; i++) hub.board.create({ title: `r${i}`, ready: true }, api);
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

  it('respects dependencies when claiming: a task waits until what it depends on is complete', () => {
    const hub = openHub();
    try {
      const base = hub.board.create({ title: 'base', ready: true, priority: 'P3' }, api).task.id;
      hub.board.create({ title: 'top', ready: true, priority: 'P0', depends_on: [base] }, api);
      assert.equal(hub.board.ready().tasks[0]?.claimable, true);
      assert.equal(hub.board.claimNext(agent('a')).task?.id, base, 'the P0 task waits for its dependency');
      assert.equal(hub.board.claimNext(agent('b')).claimed, false);
      hub.board.move(base, 'complete', {}, api);
      assert.equal(hub.board.claimNext(agent('b')).task?.title, 'top');
      assert.throws(() => hub.board.claimNext({ source: 'mcp' }), /agent_session is required/);
    } finally {
      hub.close();
      removeRepo(hub.repo);
    }
  });
});
