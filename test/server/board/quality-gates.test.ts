// Quality gates from board.json: off by default; the definition of ready (Outcome and Acceptance before
// in_progress), the definition of done (a Work Log entry since the claim, and a linked commit on a real
// git repository); a refusal says what is missing, a bypass needs a reason and is recorded.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { entriesSince } from '../../../server/board/quality-gates.ts';
import { loadConfig } from '../../../server/config.ts';
import { ToolError } from '../../../server/errors.ts';
import { createHub } from '../../../server/hub.ts';
import { makeRepo } from '../git/repo.ts';
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

const refused = (pattern: RegExp) => (err: unknown) =>
  err instanceof ToolError && err.category === 'validation' && pattern.test(err.message);

describe('quality gates', () => {
  let hub: TestHub | undefined;
  afterEach(() => {
    hub?.close();
    if (hub) removeRepo(hub.repo);
    hub = undefined;
  });

  it('are off by default: an empty task moves to in_progress and on to complete', async () => {
    hub = openHub();
    const { task } = await hub.board.create({ title: 'bare' }, api);
    await hub.board.move(task.id, 'in_progress', {}, agent('a1'));
    assert.equal((await hub.board.move(task.id, 'complete', {}, agent('a1'))).new_status, 'complete');
    assert.deepEqual(hub.board.settings().gates, { ready: false, done: false, done_needs_commit: false });
  });

  it('definition of ready: in_progress needs an Outcome and Acceptance; a bypass needs a reason and is recorded', async () => {
    hub = openHub();
    writeBoardJson(hub.repo, { gates: { ready: true } });
    const { task } = await hub.board.create({ title: 'vague', outcome: 'It works.' }, api);
    await assert.rejects(
      hub.board.move(task.id, 'in_progress', {}, agent('a1')),
      refused(
        /cannot enter in_progress: the board's definition of ready .* needs Acceptance criteria; .*bypass_gates/,
      ),
    );
    await assert.rejects(
      hub.board.move(task.id, 'in_progress', { bypass_gates: true }, agent('a1')),
      refused(/needs a reason/),
    );
    assert.equal(hub.board.show(task.id).status, 'icebox');
    const moved = await hub.board.move(
      task.id,
      'in_progress',
      { bypass_gates: true, reason: 'spike, criteria tomorrow' },
      agent('a1'),
    );
    assert.equal(moved.new_status, 'in_progress');
    assert.match(
      hub.board.show(task.id).sections.work_log,
      /Gate bypass: definition of ready \(missing Acceptance criteria\): spike, criteria tomorrow/,
    );
    const status = hub.board.history(task.id).events.filter((e) => e.type === 'status');
    assert.deepEqual(status.at(-1)?.detail, {
      gates_bypassed: true,
      // In a team the history names the machine of every change.
      ...(boardStore === 'postgres' ? { machine: 'machine-test' } : {}),
    });
    const ready = await hub.board.create(
      { title: 'clear', outcome: 'It works.', acceptance: 'Given… then…' },
      api,
    );
    assert.equal(
      (await hub.board.move(ready.task.id, 'in_progress', {}, agent('a2'))).new_status,
      'in_progress',
    );
    // A claim is a move to in_progress: claim-next passes over a queued task the gate holds back (one
    // under-specified task must not stop the queue) and names it when nothing else is left.
    const unready = await hub.board.create({ title: 'queued', ready: true, priority: 'P0' }, api);
    const specified = await hub.board.create(
      { title: 'specified', ready: true, priority: 'P3', outcome: 'Done.', acceptance: 'It is.' },
      api,
    );
    const first = await hub.board.claimNext(agent('a3'));
    assert.equal(first.task?.id, specified.task.id);
    const second = await hub.board.claimNext(agent('a4'));
    assert.equal(second.claimed, false);
    assert.match(second.message, new RegExp(`definition of ready .*${unready.task.id} lack`));
    assert.equal(hub.board.show(unready.task.id).status, 'icebox');
  });

  it('definition of done: complete needs a Work Log entry made since the claim, move lines aside', async () => {
    hub = openHub();
    writeBoardJson(hub.repo, { gates: { done: true } });
    const { task } = await hub.board.create({ title: 'log it' }, api);
    await hub.board.appendWorkLog(task.id, 'noted before anyone took it', {}, api);
    await new Promise((r) => setTimeout(r, 5));
    await hub.board.move(task.id, 'in_progress', { reason: 'taking it' }, agent('a1'));
    await hub.board.move(task.id, 'testing', { reason: 'ready to test' }, agent('a1'));
    await assert.rejects(
      hub.board.move(task.id, 'complete', {}, agent('a1')),
      refused(/definition of done .* needs a Work Log entry since it was claimed/),
    );
    await hub.board.appendWorkLog(task.id, 'tests pass on CI', {}, agent('a1'));
    assert.equal((await hub.board.move(task.id, 'complete', {}, agent('a1'))).new_status, 'complete');
    assert.match(readTask(hub, `${task.id}-log-it.md`), /tests pass on CI/);
  });

  it('a bad gates entry in board.json is reported and the gates stay off', () => {
    hub = openHub();
    writeBoardJson(hub.repo, { gates: { ready: 'yes' } });
    assert.match(hub.board.settings().error ?? '', /gates\.ready" must be true or false/);
    assert.equal(hub.board.settings().gates.ready, false);
    writeBoardJson(hub.repo, { gates: { reviewed: true } });
    assert.match(hub.board.settings().error ?? '', /the gates are ready, done and done_needs_commit/);
  });

  it('work-log entries count from the claim on, by their own timestamps', () => {
    const log = [
      '- 2026-11-02T09:00:00.000Z (a1) looked at it',
      '- 2026-11-03T10:00:00.000Z (a1) icebox → in_progress: taking it',
      '- 2026-11-03T11:00:00.000Z WIP bypass: in_progress at 4 over cap 3: urgent',
      '- 2026-11-03T12:00:00.000Z (a1) wrote the parser',
      '  continued on a second line',
    ].join('\n');
    assert.equal(entriesSince(log, '2026-11-03T10:00:00.000Z'), 1);
    assert.equal(entriesSince(log, null), 2);
    assert.equal(entriesSince(log, '2026-11-04T00:00:00.000Z'), 0);
  });
});

describe('the commit gate on a real git repository', () => {
  it('complete needs a commit naming the task; with one it moves', async () => {
    const repo = makeRepo('cos-gates-');
    const state = mkdtempSync(join(tmpdir(), 'cos-gates-state-'));
    const config = loadConfig({ COS_REPO: repo.dir, COS_STATE_DIR: state }, {}, repo.dir);
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(config.tasksDir, { recursive: true });
    writeFileSync(join(state, 'board.json'), JSON.stringify({ gates: { done_needs_commit: true } }));
    const hub = createHub(config, { logSync: true });
    try {
      const board = hub.services.board;
      board.start();
      repo.write('README.md', '# x\n');
      repo.commit('Initial', '2026-11-02T09:00:00Z');
      const { task } = await board.create({ title: 'ship it' }, api);
      await board.move(task.id, 'in_progress', {}, agent('a1'));
      await assert.rejects(
        board.move(task.id, 'complete', {}, agent('a1')),
        refused(
          new RegExp(`needs a commit naming ${task.id} \\(in its message, a trailer "Task: ${task.id}"`),
        ),
      );
      repo.write('src/x.ts', 'export const x = 1;\n');
      repo.commit(`Add x\n\nTask: ${task.id}`, '2026-11-02T10:00:00Z');
      assert.equal((await board.move(task.id, 'complete', {}, agent('a1'))).new_status, 'complete');
    } finally {
      await hub.close();
      rmSync(state, { recursive: true, force: true });
      repo.remove();
    }
  });
});
