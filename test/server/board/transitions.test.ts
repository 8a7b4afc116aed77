import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STATUSES, TRANSITIONS } from '../../../server/board/model.ts';
import { renderNewTask } from '../../../server/board/task-file.ts';
import { ToolError } from '../../../server/errors.ts';
import { api, openHub, removeRepo, type TestHub, tempRepo, writeBoardJson } from './helpers.ts';

describe('transitions', () => {
  let hub: TestHub;
  before(() => {
    const repo = tempRepo();
    // No caps here: this suite pins the transition table alone.
    writeBoardJson(repo, { wip: { in_progress: null, testing: null, emergency: null } });
    // One task per (from, to) pair, written as files in the `from` status.
    let n = 1;
    for (const from of STATUSES)
      for (const _to of STATUSES) {
        writeFileSync(
          join(repo, 'docs', 'tasks', `TASK-${n}-pair.md`),
          renderNewTask(
            {
              id: n,
              key: `TASK-${n}`,
              title: 'pair',
              status: from,
              kind: 'chore',
              priority: 'P2',
              appetite: null,
              swimlane: null,
              epic: null,
              labels: [],
              created: null,
              started: null,
              completed: null,
              agent_session: null,
              depends_on: [],
              blocked_by: [],
              references: [],
              version: 1,
            },
            { outcome: '', read_first: '', acceptance: '', work_log: '' },
          ),
        );
        n++;
      }
    hub = openHub({ repo });
  });
  after(() => {
    hub.close();
    removeRepo(hub.repo);
  });

  it("allows exactly the issue's transitions and refuses every other one, naming the allowed targets", async () => {
    let n = 1;
    let allowed = 0;
    for (const from of STATUSES)
      for (const to of STATUSES) {
        const id = `TASK-${n++}`;
        if (TRANSITIONS[from].includes(to)) {
          const change = await hub.board.move(id, to, { expected_version: 1 }, api);
          assert.equal(change.new_status, to);
          assert.equal(change.old_status, from);
          assert.equal(change.task.version, 2);
          allowed++;
        } else {
          await assert.rejects(
            hub.board.move(id, to, {}, api),
            (err: unknown) =>
              err instanceof ToolError &&
              err.category === 'validation' &&
              err.message.includes(`from ${from} to ${to}`) &&
              err.message.includes(`allowed from ${from}: ${TRANSITIONS[from].join(', ')}`),
            `${from} → ${to} must be refused`,
          );
          assert.equal(hub.board.show(id).status, from, 'a refused move changes nothing');
        }
      }
    assert.equal(allowed, 19);
  });

  it('pins the table itself', () => {
    assert.deepEqual(TRANSITIONS, {
      icebox: ['in_progress', 'emergency', 'archive'],
      emergency: ['in_progress', 'icebox'],
      in_progress: ['testing', 'blocked', 'icebox', 'emergency', 'complete'],
      testing: ['complete', 'in_progress', 'blocked'],
      complete: ['archive'],
      blocked: ['in_progress', 'emergency', 'icebox'],
      archive: ['icebox', 'complete'],
    });
  });

  it('stamps started, completed and the agent session as a task moves', async () => {
    const { task } = await hub.board.create({ title: 'stamps' }, api);
    const started = (
      await hub.board.move(task.id, 'in_progress', {}, { source: 'mcp', agentSession: 'agent-9' })
    ).task;
    assert.ok(started.started);
    assert.equal(started.agent_session, 'agent-9');
    const done = (await hub.board.move(task.id, 'complete', { reason: 'shipped' }, api)).task;
    assert.ok(done.completed);
    assert.match(done.sections.work_log, /in_progress → complete: shipped/);
    const archived = (await hub.board.move(task.id, 'archive', {}, api)).task;
    assert.equal(archived.completed, done.completed, 'archiving keeps the completion date');
    const revived = (await hub.board.move(task.id, 'icebox', {}, api)).task;
    assert.equal(revived.completed, null);
  });
});
