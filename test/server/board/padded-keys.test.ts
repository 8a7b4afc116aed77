// Issue #16: on a zero-padded board (TASK-001 …, as other tools write them) every answer that names a
// task names it by its file's id, whichever spelling led there: a claim, the daily, the activity
// timeline, commits that write `TASK-7` or `task/TASK-12-…`, the tasks a change report lists, and the
// quality gates (the commit gate counts a `Task: TASK-7` commit for TASK-007).
// A real git repository, the real hub, the real tools.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../../server/config.ts';
import { Indexer } from '../../../server/graph/indexer.ts';
import { createHub, type Hub } from '../../../server/hub.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import { runTool } from '../../../server/tools/run.ts';
import { makeRepo, type TestRepo } from '../git/repo.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Any = any;

/** A task file the way another tool writes one: padded id, its own keys, a date, no hub version. */
const task = (key: string, title: string, status: string, extra: string[] = []) =>
  [
    '---',
    `id: ${key}`,
    `title: ${title}`,
    `status: ${status}`,
    'priority: P2',
    'created: 2026-10-01',
    'tracker: legacy-tool',
    ...extra,
    '---',
    '',
    '## Description',
    '',
    `${title}.`,
    '',
  ].join('\n');

let repo: TestRepo;
let hub: Hub;
let state: string;
const sha: Record<string, string> = {};

async function data(name: string, input: unknown): Promise<Any> {
  const tool = catalog.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const env = await runTool(tool, input, {
    applyBudget: true,
    ctx: hub.context({ transport: 'mcp' }),
  });
  if (!env.ok) throw new Error(`${name}: ${env.error.category}: ${env.error.message}`);
  return env.data;
}

before(async () => {
  repo = makeRepo('cos-padded-');
  repo.write('src/calc.ts', 'export function twice(n: number): number {\n  return n * 2;\n}\n');
  repo.write('src/other.ts', 'export const other = 1;\n');
  for (let n = 1; n <= 12; n++) {
    const key = `TASK-${String(n).padStart(3, '0')}`;
    const extra =
      n === 3
        ? ['references: [src/calc.ts]']
        : n === 5
          ? ['labels: [ready]']
          : n === 9
            ? ['version: "2.1"']
            : [];
    const status = n === 12 ? 'in_progress' : 'icebox';
    repo.write(`docs/tasks/${key} - Task number ${n}.md`, task(key, `Task number ${n}`, status, extra));
  }
  sha.initial = repo.commit('Initial layout', '2026-11-02T09:00:00Z');
  repo.write('src/other.ts', 'export const other = 2;\n');
  sha.trailer = repo.commit('Bump other\n\nTask: TASK-7', '2026-11-03T10:00:00Z', 'Bea');
  repo.write('src/other.ts', 'export const other = 3;\n');
  sha.padded = repo.commit('TASK-007: bump other again', '2026-11-03T11:00:00Z', 'Bea');
  repo.git('checkout', '-q', '-b', 'task/TASK-12-open-work');
  repo.write('src/other.ts', 'export const other = 4;\n');
  sha.branch = repo.commit('Open work', '2026-11-04T09:00:00Z', 'Cy');
  repo.git('checkout', '-q', 'main');

  state = mkdtempSync(join(tmpdir(), 'cos-padded-state-'));
  const config = loadConfig({ COS_REPO: repo.dir, COS_STATE_DIR: state }, {}, repo.dir);
  hub = createHub(config, { logSync: true });
  hub.services.board.start();
  await new Indexer({ repo: repo.dir, db: hub.db }).run({});
});
after(async () => {
  await hub?.close();
  if (state) rmSync(state, { recursive: true, force: true });
  repo?.remove();
});

test('the keys helper: every spelling of a number is the board key; unknown numbers take the padding', () => {
  const keys = hub.services.board.keys;
  for (const token of ['TASK-7', 'task-007', '7', '007', 7]) assert.equal(keys.resolve(token), 'TASK-007');
  assert.equal(keys.keyOf(12), 'TASK-012');
  assert.equal(keys.keyOf(40), 'TASK-040', 'a number no task has is spelled the way the board pads');
  assert.equal(keys.resolve('TASK-'), null);
});

test('claim-next names the claimed task by its file id, in the task and the message', async () => {
  const c = await data('cos_task_claim_next', { agent_session: 'agent-p' });
  assert.equal(c.claimed, true);
  assert.equal(c.task.id, 'TASK-005');
  assert.equal(c.message, 'TASK-005 is now in_progress for agent-p');
});

test('the daily and the timeline name moved tasks by their file ids', async () => {
  await data('cos_task_move', { id: '8', to: 'in_progress' });
  await data('cos_task_move', { id: 'TASK-8', to: 'testing' });
  const d = await data('cos_task_daily', {});
  const started = d.started.map((x: Any) => x.id);
  assert.ok(started.includes('TASK-008') && started.includes('TASK-005'), started.join(','));
  assert.ok([...d.started, ...d.completed, ...d.blocked].every((x: Any) => /^TASK-0\d\d$/.test(x.id)));
  const t = await data('cos_observability_timeline', { limit: 50 });
  const board = t.entries.filter((e: Any) => e.kind === 'board').map((e: Any) => e.summary);
  assert.ok(board.length >= 3, board.join('\n'));
  assert.ok(
    board.some((s: string) => s.startsWith('TASK-008 status in_progress → testing')),
    board.join('\n'),
  );
  assert.ok(
    board.every((s: string) => /^TASK-0\d\d /.test(s)),
    board.join('\n'),
  );
});

test('commits writing TASK-7, TASK-007 or a branch task/TASK-12-… link to TASK-007 and TASK-012', async () => {
  const h = await data('cos_task_history', { id: 'TASK-007', include_commits: true });
  assert.equal(h.task_id, 'TASK-007');
  assert.deepEqual(
    h.events.filter((e: Any) => e.type === 'commit').map((e: Any) => [e.detail.sha, e.detail.link]),
    [
      [sha.trailer, 'trailer'],
      [sha.padded, 'message'],
    ],
  );
  const c = await data('cos_task_changes', { id: '12' });
  assert.equal(c.mode, 'branch');
  assert.deepEqual(c.branches, ['task/TASK-12-open-work']);
  assert.deepEqual(
    c.commits.map((x: Any) => [x.sha, x.link]),
    [[sha.branch, 'branch']],
  );
});

test('detect_changes lists the tasks a change affects by their file ids', async () => {
  repo.write('src/calc.ts', 'export function twice(n: number): number {\n  return n + n;\n}\n');
  try {
    const d = await data('cos_graph_detect_changes', {});
    assert.deepEqual(
      d.affected.tasks.map((t: Any) => t.id),
      ['TASK-003'],
    );
  } finally {
    repo.git('checkout', '-q', '--', 'src/calc.ts');
  }
});

test('the quality gates name tasks by their file ids and count a commit writing TASK-7 for TASK-007', async () => {
  writeFileSync(
    join(state, 'board.json'),
    JSON.stringify({ gates: { ready: true, done_needs_commit: true } }),
  );
  try {
    // TASK-010 has no Outcome: the definition of ready holds it back, and claim-next says which it is.
    await data('cos_task_edit', { id: '10', add_labels: ['ready'] });
    const c = await data('cos_task_claim_next', { agent_session: 'agent-q' });
    assert.equal(c.claimed, false);
    assert.match(c.message, /: TASK-010 lack an Outcome/);
    // TASK-011 is named by no commit: the done gate refuses it under its own id.
    await data('cos_task_move', { id: '11', to: 'in_progress', bypass_gates: true, reason: 'test' });
    await assert.rejects(
      data('cos_task_move', { id: '11', to: 'complete' }),
      /TASK-011 cannot enter complete: .* a commit naming TASK-011/,
    );
    // TASK-007's commits write TASK-7 and TASK-007: they count, so it completes.
    await data('cos_task_move', {
      id: '7',
      to: 'in_progress',
      bypass_gates: true,
      bypass_wip: true,
      reason: 'test',
    });
    const done = await data('cos_task_move', { id: 'TASK-7', to: 'complete' });
    assert.equal(done.task.id, 'TASK-007');
    assert.equal(done.new_status, 'complete');
  } finally {
    rmSync(join(state, 'board.json'));
  }
});
