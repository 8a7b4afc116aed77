// The acceptance run: 16 agents claiming, moving and editing at once. Four processes with four
// agents each, so the SQLite write lock is really contended across connections. CI runs it for 5 s;
// COS_SOAK_SECONDS=30 runs the full 30 seconds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  api,
  disagreements,
  openHub,
  readTask,
  removeRepo,
  runWorker,
  tempRepo,
  writeBoardJson,
} from './helpers.ts';

const SECONDS = Number(process.env.COS_SOAK_SECONDS ?? 5);

describe('16 agents at once', () => {
  it(`claims, moves and edits for ${SECONDS} s with no double claim, no lost update, no busy error as internal`, {
    timeout: (SECONDS + 60) * 1000,
  }, async () => {
    const repo = tempRepo();
    writeBoardJson(repo, { wip: { in_progress: 12, testing: 12 } });
    const hub = openHub({ repo });
    try {
      for (let i = 0; i < 200; i++)
        await hub.board.create({ title: `seed ${i}`, ready: true, priority: `P${i % 4}` as 'P0' }, api);
      const groups = [0, 1, 2, 3].map((p) => [0, 1, 2, 3].map((a) => `agent-${p}-${a}`));
      const reports = await Promise.all(groups.map((g) => runWorker(repo, 'soak', g, SECONDS)));

      assert.deepEqual(
        reports.flatMap((r) => r.internal),
        [],
        'no error leaked as internal',
      );
      const claims = reports.flatMap((r) => r.claims.map((c) => c.id));
      assert.ok(claims.length > 16, `agents claimed work (${claims.length})`);
      assert.equal(new Set(claims).size, claims.length, 'no task claimed twice');

      hub.board.reconcile();
      assert.deepEqual(disagreements(hub), [], 'files and index agree');

      // Every write bumps the version by one, so a lost update would leave the version short.
      const writes = new Map<string, number>();
      for (const r of reports)
        for (const [id, n] of Object.entries(r.writes)) writes.set(id, (writes.get(id) ?? 0) + n);
      for (const [id, n] of writes)
        assert.equal(hub.board.show(id).version, 1 + n, `${id}: every write is in the file`);
      for (const { id, token } of reports.flatMap((r) => r.tokens)) {
        const name = hub.board.show(id).path.split('/').pop() ?? '';
        assert.ok(
          readTask(hub, name).includes(` ${token}\n`) || readTask(hub, name).endsWith(` ${token}`),
          `${token} kept`,
        );
      }
      const inProgress = hub.board.board({ status: 'in_progress' }).columns[0]?.count ?? 0;
      assert.ok(inProgress <= 12, `WIP cap held under contention (${inProgress})`);
      const ops = reports.reduce((a, r) => a + r.ops, 0);
      const errors = reports.reduce<Record<string, number>>((acc, r) => {
        for (const [k, v] of Object.entries(r.errors)) acc[k] = (acc[k] ?? 0) + v;
        return acc;
      }, {});
      // Useful when reading CI logs: how much really happened.
      process.stdout.write(
        `# soak: ${ops} operations, ${claims.length} claims, expected refusals ${JSON.stringify(errors)}\n`,
      );
    } finally {
      hub.close();
      removeRepo(repo);
    }
  });
});
