import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { ToolError } from '../../../server/errors.ts';
import {
  agent,
  api,
  boardStore,
  openHub,
  readTask,
  removeRepo,
  type TestHub,
  writeBoardJson,
} from './helpers.ts';

describe('WIP caps', () => {
  let hub: TestHub;
  afterEach(() => {
    hub.close();
    removeRepo(hub.repo);
  });

  it('defaults to in_progress 3, testing 3, emergency 2', () => {
    hub = openHub();
    assert.deepEqual(hub.board.settings().wip, { in_progress: 3, testing: 3, emergency: 2 });
    const config = hub.board.config();
    assert.equal(config.columns.find((c) => c.status === 'in_progress')?.cap, 3);
    assert.equal(config.columns.find((c) => c.status === 'icebox')?.cap, null);
  });

  it('refuses a move into a full column, naming the cap and the bypass flag', async () => {
    hub = openHub();
    const ids: string[] = [];
    for (const i of [1, 2, 3, 4]) ids.push((await hub.board.create({ title: `t${i}` }, api)).task.id);
    for (const id of ids.slice(0, 3)) await hub.board.move(id, 'in_progress', {}, api);
    await assert.rejects(
      hub.board.move(ids[3]!, 'in_progress', {}, api),
      (err: unknown) =>
        err instanceof ToolError &&
        err.category === 'validation' &&
        /in_progress is at its WIP cap of 3/.test(err.message) &&
        /bypass_wip: true with a reason/.test(err.message),
    );
    await assert.rejects(
      hub.board.move(ids[3]!, 'in_progress', { bypass_wip: true }, api),
      /bypass_wip needs a reason/,
    );
    assert.equal(hub.board.show(ids[3]!).status, 'icebox');
  });

  it('records a bypass with its reason in the bypass log, the history and the Work Log', async () => {
    hub = openHub();
    writeBoardJson(hub.repo, { wip: { in_progress: 1 } });
    const a = (await hub.board.create({ title: 'a' }, api)).task.id;
    const b = (await hub.board.create({ title: 'b' }, api)).task.id;
    await hub.board.move(a, 'in_progress', {}, api);
    const change = await hub.board.move(
      b,
      'in_progress',
      { bypass_wip: true, reason: 'prod is down' },
      agent('agent-2'),
    );
    assert.equal(change.wip_bypassed, true);
    const check = hub.board.wipCheck();
    assert.deepEqual(check.violations, [{ status: 'in_progress', count: 2, cap: 1 }]);
    assert.equal(check.recent_bypasses[0]?.reason, 'prod is down');
    assert.equal(check.recent_bypasses[0]?.agent_session, 'agent-2');
    assert.equal(check.recent_bypasses[0]?.source, 'mcp');
    const history = hub.board.history(b).events.find((e) => e.type === 'status');
    assert.deepEqual(history?.detail, {
      wip_bypassed: true,
      // In a team the history names the machine of every change.
      ...(boardStore === 'postgres' ? { machine: 'machine-test' } : {}),
    });
    assert.match(readTask(hub, 'TASK-2-b.md'), /WIP bypass: in_progress at 2 over cap 1: prod is down/);
    assert.equal(hub.board.board().wip.find((w) => w.status === 'in_progress')?.over_cap, true);
  });

  it('reads caps from $COS_STATE_DIR/board.json and notices when it changes', async () => {
    hub = openHub();
    writeBoardJson(hub.repo, { wip: { testing: 1, blocked: 2, emergency: null }, swimlanes: ['hub', 'web'] });
    assert.deepEqual(hub.board.settings().wip, { in_progress: 3, testing: 1, blocked: 2 });
    assert.deepEqual(hub.board.config().swimlanes, ['hub', 'web']);
    // Emergency has no cap now: three emergencies are fine.
    for (let i = 0; i < 3; i++) await hub.board.create({ title: `e${i}`, status: 'emergency' }, api);
    writeFileSync(join(hub.repo, '.cos', 'board.json'), '{ not json');
    const config = hub.board.config();
    assert.match(config.config_error ?? '', /not valid JSON/);
    assert.equal(config.wip_caps.in_progress, 3, 'defaults apply when board.json is broken');
  });

  it('caps claim-next too', async () => {
    hub = openHub();
    writeBoardJson(hub.repo, { wip: { in_progress: 1 } });
    await hub.board.create({ title: 'one', ready: true }, api);
    await hub.board.create({ title: 'two', ready: true }, api);
    assert.equal((await hub.board.claimNext(agent('a'))).claimed, true);
    await assert.rejects(hub.board.claimNext(agent('b')), /WIP cap of 1/);
    const bypass = await hub.board.claimNext(agent('b'), { bypass_wip: true, reason: 'pairing' });
    assert.equal(bypass.task?.id, 'TASK-2');
  });
});
