// Reclaim with several concurrent simulated agents: tasks claimed by a session that ended, or went silent
// past the grace, go back to the ready queue with the reason in their history (by cos_task_reclaim, or by
// the claim-next that needs them); a task whose claimant is alive is never handed out; a claimant the hub
// never saw is left alone; claims' references make their files the claimant's for edit conflicts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fixture } from '../../support/hooks.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';

let clock = Date.parse('2026-11-30T12:00:00Z');
let t: TestHub;
const host = { host: '127.0.0.1' };

before(async () => {
  t = await startTestHub({ listen: true, now: () => clock, env: { COS_RATE_LIMIT_RPS: '0' } });
  writeFileSync(join(t.config.stateDir, 'board.json'), JSON.stringify({ wip: { in_progress: 20 } }));
  await t.hub.services.board.start();
  for (let i = 1; i <= 8; i++) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/board/tasks',
      headers: host,
      payload: {
        title: `Task ${i}`,
        labels: ['ready'],
        priority: i <= 4 ? 'P1' : 'P2',
        references: [`src/t${i}.ts`],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
});
after(() => t.close());

const hook = (session: string, name: string, overrides: Record<string, unknown> = {}) =>
  fetch(`${t.url}/api/hooks/events?client=claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fixture('claude-code', name, t.dir, { session_id: session, ...overrides })),
  }).then(async (r) => {
    assert.equal(r.status, 200);
    return r.json() as Promise<Record<string, unknown>>;
  });

const claim = (agent_session: string) =>
  fetch(`${t.url}/api/board/claim-next`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_session }),
  }).then(
    async (r) => ((await r.json()) as { data: { claimed: boolean; task: { id: string } | null } }).data,
  );

const reclaim = async (body: Record<string, unknown>) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/board/reclaim', headers: host, payload: body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    dry_run: boolean;
    entries: {
      task: { id: string };
      agent_session: string | null;
      state: string;
      reason: string;
      released: boolean;
    }[];
  };
};

const held: Record<string, string> = {};

test('four agents claim at once and each gets its own task', async () => {
  for (const a of ['alive', 'ender', 'quiet']) await hook(a, 'session-start');
  const mcp = await connectClient(t.url);
  const mcpId = (mcp.transport as unknown as { sessionId: string }).sessionId;
  const results = await Promise.all([claim('alive'), claim('ender'), claim('quiet'), claim(mcpId)]);
  const ids = results.map((r) => r.task?.id);
  assert.equal(new Set(ids).size, 4, `four different tasks: ${ids.join(', ')}`);
  ['alive', 'ender', 'quiet', 'mcp'].forEach((a, i) => {
    held[a] = ids[i]!;
  });
  held.mcpId = mcpId;
  await mcp.close(); // an MCP client that leaves without DELETE: its session stays open, then idle
});

test("a claimed task's references are its claimant's files: another agent editing one is warned", async () => {
  const n = held.alive!.replace('TASK-', '');
  const answer = (await hook('quiet', 'pre-tool-use-edit', {
    tool_input: { file_path: `${t.dir}/src/t${n}.ts`, old_string: 'a', new_string: 'b' },
  })) as { systemMessage?: string };
  assert.match(
    String(answer.systemMessage),
    new RegExp(`belongs to ${held.alive} "Task ${n}" claimed by claude-code alive[.;]`),
  );
});

test('dry run lists who is gone and releases nothing', async () => {
  await hook('ender', 'session-end');
  clock += 31 * 60_000; // quiet and the MCP session go silent past the 30-minute grace
  await hook('alive', 'stop'); // alive keeps talking
  const dry = await reclaim({});
  assert.equal(dry.dry_run, true);
  const state = Object.fromEntries(dry.entries.map((e) => [e.task.id, e.state]));
  assert.equal(state[held.alive!], 'alive');
  assert.equal(state[held.ender!], 'ended');
  assert.equal(state[held.quiet!], 'silent');
  assert.equal(state[held.mcp!], 'silent');
  assert.ok(dry.entries.every((e) => !e.released));
  const board = (
    await t.app.inject({ method: 'GET', url: '/api/board/list?status=in_progress', headers: host })
  ).json();
  assert.equal(board.data.columns[0].count, 4);
});

test('concurrent claim-next calls take the dead claims, never the live one, and history says why', async () => {
  const results = await Promise.all(['new-1', 'new-2', 'new-3', 'new-4', 'new-5'].map((a) => claim(a)));
  const got = results.map((r) => r.task?.id).filter((id): id is string => id !== undefined);
  assert.equal(new Set(got).size, got.length, 'no task handed out twice');
  assert.ok(!got.includes(held.alive!), 'the live claimant keeps its task');
  // The three released tasks are P1 (they were claimed first): the next claims take them again.
  for (const dead of [held.ender!, held.quiet!, held.mcp!])
    assert.ok(got.includes(dead), `${dead} went back to the queue`);
  const history = (
    await t.app.inject({ method: 'GET', url: `/api/board/tasks/${held.ender}/history`, headers: host })
  ).json();
  const text = JSON.stringify(history.data);
  assert.match(text, /reclaimed: ender its session ended \(prompt_input_exit\)/);
  const quiet = JSON.stringify(
    (
      await t.app.inject({ method: 'GET', url: `/api/board/tasks/${held.quiet}/history`, headers: host })
    ).json().data,
  );
  assert.match(quiet, /reclaimed: quiet silent for 31 min/);
  const timeline = (
    await t.app.inject({ method: 'GET', url: '/api/agents/activity?agent=ender&kind=claim', headers: host })
  ).json().data.entries as { summary: string }[];
  assert.deepEqual(timeline.map((e) => e.summary).reverse(), [
    `claimed ${held.ender}`,
    `${held.ender} reclaimed: its session ended (prompt_input_exit) 31 min ago`,
  ]);
});

test('cos_task_reclaim releases on request, is idempotent, and leaves a claimant it never saw alone', async () => {
  // A task put in progress by hand for someone the hub has never heard of.
  const ghost = await claim('ghost-agent');
  assert.ok(ghost.task);
  clock += 40 * 60_000;
  const first = await reclaim({ dry_run: false });
  const byTask = Object.fromEntries(first.entries.map((e) => [e.task.id, e]));
  assert.equal(byTask[ghost.task.id]?.state, 'unknown');
  assert.equal(byTask[ghost.task.id]?.released, false);
  assert.equal(byTask[held.alive!]?.state, 'silent', 'alive has been quiet for 40 minutes now');
  assert.equal(byTask[held.alive!]?.released, true);
  const again = await reclaim({ dry_run: false });
  assert.ok(
    again.entries.every((e) => !e.released),
    'nothing left to release',
  );
  const bad = await t.app.inject({
    method: 'POST',
    url: '/api/board/reclaim',
    headers: host,
    payload: { task: 'TASK-0' },
  });
  assert.equal(bad.statusCode, 400);
});
