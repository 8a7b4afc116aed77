// The daily and the retro on a fixture board's two weeks of history (test/fixtures/flow: task files as
// the hub and another tool wrote them, task_events rows as the hub recorded them), checked against the
// figures worked out by hand below.
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spread } from '../../../server/board/flow.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import { runTool } from '../../../server/tools/run.ts';
import { makeCtx, openHub, removeRepo, type TestHub, tempRepo } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Any = any;

const FIXTURE = fileURLToPath(new URL('../../fixtures/flow/', import.meta.url));
let hub: TestHub;

async function data(name: string, input: unknown, transport: 'mcp' | 'rest' = 'rest'): Promise<Any> {
  const tool = catalog.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const env = await runTool(tool, input, { applyBudget: transport === 'mcp', ctx: makeCtx(hub, transport) });
  if (!env.ok) throw new Error(`${name}: ${env.error.category}: ${env.error.message}`);
  return env.data;
}

before(() => {
  const repo = tempRepo('cos-flow-');
  cpSync(join(FIXTURE, 'tasks'), join(repo, 'docs', 'tasks'), { recursive: true });
  hub = openHub({ repo, start: false });
  const insert = hub.db.prepare(
    `INSERT INTO task_events (task_id, at, type, from_status, to_status, agent_session, source, reason, version, detail)
     VALUES (@task_id, @at, @type, @from_status, @to_status, @agent_session, @source, @reason, @version, @detail)`,
  );
  for (const line of readFileSync(join(FIXTURE, 'events.jsonl'), 'utf8').split('\n'))
    if (line.trim()) insert.run(JSON.parse(line));
  // The hub seeing the files now adds its own "created" rows, today: they must change nothing in November.
  hub.board.start();
});
after(() => {
  hub.close();
  removeRepo(hub.repo);
});

const RETRO = { from: '2026-11-02', to: '2026-11-16' };

test('throughput per ISO week counts the tasks completed in it', async () => {
  const r = await data('cos_task_retro', RETRO);
  // W45 (Nov 2–8): TASK-1 (Nov 4), TASK-2 (Nov 6). W46 (Nov 9–15): TASK-3 (9th), TASK-5 (11th), TASK-6 (12th).
  assert.deepEqual(r.throughput, [
    { week: '2026-W45', starts: '2026-11-02', completed: 2 },
    { week: '2026-W46', starts: '2026-11-09', completed: 3 },
  ]);
  assert.deepEqual(
    r.completions.map((c: Any) => c.id),
    ['TASK-1', 'TASK-2', 'TASK-3', 'TASK-5', 'TASK-6'],
  );
});

test('cycle and lead time: median and p85, overall, per kind and per swimlane', async () => {
  const r = await data('cos_task_retro', RETRO);
  // Cycle (first in_progress → complete), hours: TASK-1 48, TASK-2 66, TASK-3 6, TASK-5 120 (front
  // matter: started Nov 6 09:00, completed Nov 11 09:00), TASK-6 24.
  // Lead (created → complete): TASK-1 49, TASK-2 70, TASK-3 126, TASK-5 537 (created Oct 20), TASK-6 72.
  const byId = Object.fromEntries(r.completions.map((c: Any) => [c.id, [c.cycle_hours, c.lead_hours]]));
  assert.deepEqual(byId, {
    'TASK-1': [48, 49],
    'TASK-2': [66, 70],
    'TASK-3': [6, 126],
    'TASK-5': [120, 537],
    'TASK-6': [24, 72],
  });
  // Sorted cycle 6 24 48 66 120: median 48, p85 = 5th of 5 (nearest rank ⌈4.25⌉) = 120.
  assert.deepEqual(r.cycle_time.all, { count: 5, median_hours: 48, p85_hours: 120 });
  // Sorted lead 49 70 72 126 537: median 72, p85 537.
  assert.deepEqual(r.lead_time.all, { count: 5, median_hours: 72, p85_hours: 537 });
  assert.deepEqual(r.cycle_time.by_kind, [
    { kind: 'bug', count: 2, median_hours: 45, p85_hours: 66 },
    { kind: 'docs', count: 1, median_hours: 6, p85_hours: 6 },
    { kind: 'feature', count: 2, median_hours: 84, p85_hours: 120 },
  ]);
  assert.deepEqual(r.lead_time.by_kind, [
    { kind: 'bug', count: 2, median_hours: 71, p85_hours: 72 },
    { kind: 'docs', count: 1, median_hours: 126, p85_hours: 126 },
    { kind: 'feature', count: 2, median_hours: 293, p85_hours: 537 },
  ]);
  assert.deepEqual(r.cycle_time.by_swimlane, [
    { swimlane: 'api', count: 3, median_hours: 66, p85_hours: 120 },
    { swimlane: 'web', count: 2, median_hours: 27, p85_hours: 48 },
  ]);
  assert.deepEqual(r.lead_time.by_swimlane, [
    { swimlane: 'api', count: 3, median_hours: 72, p85_hours: 537 },
    { swimlane: 'web', count: 2, median_hours: 87.5, p85_hours: 126 },
  ]);
});

test('cumulative flow and WIP at the end of each day, and hours blocked', async () => {
  const r = await data('cos_task_retro', RETRO);
  assert.equal(r.flow.length, 14);
  const day = (d: string) => r.flow.find((f: Any) => f.day === d);
  const nonzero = (counts: Record<string, number>) =>
    Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
  // Nov 2: TASK-1 in progress; TASK-5 (created Oct 20 by the other tool) in the icebox.
  assert.deepEqual(nonzero(day('2026-11-02').counts), { icebox: 1, in_progress: 1 });
  assert.equal(day('2026-11-02').wip, 1);
  // Nov 3: TASK-1 testing, TASK-2 in progress.
  assert.deepEqual(nonzero(day('2026-11-03').counts), { icebox: 1, in_progress: 1, testing: 1 });
  assert.equal(day('2026-11-03').wip, 2);
  // Nov 4: TASK-1 done, TASK-2 blocked, TASK-3 new.
  assert.deepEqual(nonzero(day('2026-11-04').counts), { icebox: 2, blocked: 1, complete: 1 });
  assert.equal(day('2026-11-04').wip, 0);
  // Nov 6: TASK-2 done, TASK-5 started.
  assert.deepEqual(nonzero(day('2026-11-06').counts), { icebox: 2, in_progress: 1, complete: 2 });
  // Nov 11: TASK-5 done, TASK-4 and TASK-6 in progress.
  assert.deepEqual(nonzero(day('2026-11-11').counts), { in_progress: 2, complete: 4 });
  // Nov 15: only TASK-4 still going; the hub's own "created" rows of today changed nothing.
  assert.deepEqual(nonzero(day('2026-11-15').counts), { in_progress: 1, complete: 5 });
  // TASK-2 was blocked from Nov 4 12:00 to Nov 5 02:00.
  assert.deepEqual(r.blocked, {
    total_hours: 14,
    tasks: [{ id: 'TASK-2', title: 'Fix crash on upload', hours: 14 }],
  });
});

test('the daily: what was completed, started and blocked, with who, and what is stuck', async () => {
  const d = await data('cos_task_daily', { since: '2026-11-11T00:00:00Z', hours: 24 });
  assert.equal(d.since, '2026-11-11T00:00:00.000Z');
  assert.equal(d.until, '2026-11-12T00:00:00.000Z');
  // TASK-5's completion is known from its front matter only (another tool moved it), with its session.
  assert.deepEqual(
    d.completed.map((i: Any) => [i.id, i.at, i.who]),
    [['TASK-5', '2026-11-11T09:00:00.000Z', 'codex-7']],
  );
  assert.deepEqual(
    d.started.map((i: Any) => [i.id, i.at, i.who, i.from]),
    [['TASK-6', '2026-11-11T10:00:00.000Z', 'codex-a2', 'icebox']],
  );
  assert.deepEqual(d.blocked, []);
  // TASK-4: in progress since Nov 10 09:00, last work-log line Nov 10 12:00: 36 h idle at the end.
  // TASK-6 started 14 h before the end: not stuck.
  assert.deepEqual(d.stuck, [
    {
      id: 'TASK-4',
      title: 'Refactor the store',
      who: 'gemini-a3',
      machine: null,
      since: '2026-11-10T09:00:00.000Z',
      last_activity: '2026-11-10T12:00:00.000Z',
      idle_hours: 36,
    },
  ]);
  const earlier = await data('cos_task_daily', { since: '2026-11-04', stuck_hours: 12 });
  assert.deepEqual(
    earlier.completed.map((i: Any) => [i.id, i.who]),
    [['TASK-1', 'claude-a1']],
  );
  assert.deepEqual(
    earlier.blocked.map((i: Any) => [i.id, i.who, i.reason]),
    [['TASK-2', 'codex-a2', 'waiting on vendor']],
  );
  assert.deepEqual(earlier.stuck, []);
});

test('bad windows are refused with what to pass instead', async () => {
  const tool = catalog.find((t) => t.name === 'cos_task_retro')!;
  const env = await runTool(
    tool,
    { from: '2026-11-16', to: '2026-11-02' },
    { applyBudget: true, ctx: makeCtx(hub) },
  );
  assert.ok(!env.ok && env.error.category === 'validation' && /before/.test(env.error.message));
  const long = await runTool(
    tool,
    { from: '2020-01-01', to: '2026-01-01' },
    { applyBudget: true, ctx: makeCtx(hub) },
  );
  assert.ok(!long.ok && long.error.category === 'validation');
  const daily = catalog.find((t) => t.name === 'cos_task_daily')!;
  const bad = await runTool(daily, { since: 'yesterday' }, { applyBudget: true, ctx: makeCtx(hub) });
  assert.ok(!bad.ok && bad.error.category === 'validation');
  const notDate = await runTool(daily, { since: '2026-13-45' }, { applyBudget: true, ctx: makeCtx(hub) });
  assert.ok(!notDate.ok && notDate.error.category === 'validation');
});

test('the spread of an even count is the mean of the middle two; p85 is the nearest rank', () => {
  assert.deepEqual(spread([]), { count: 0, median_hours: null, p85_hours: null });
  assert.deepEqual(spread([10, 1, 4, 7]), { count: 4, median_hours: 5.5, p85_hours: 10 });
  assert.deepEqual(spread(Array.from({ length: 20 }, (_, i) => i + 1)), {
    count: 20,
    median_hours: 10.5,
    p85_hours: 17,
  });
});

test('history with include_commits outside a git repository keeps the board events and says why', async () => {
  const h = await data('cos_task_history', { id: 'TASK-2', include_commits: true });
  assert.ok(h.events.length > 0 && h.events.every((e: Any) => e.type !== 'commit'));
  assert.match(h.meta.commits_unavailable, /git/);
});
