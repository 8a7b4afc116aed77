// cos_task_handoff across two machines' hubs on one PostgreSQL: a task claimed on A and handed off there
// shows the new holder on B within a second (the team's record, before git brings the file); a person on
// B, whose clone still has the old file, hands it on again (B plans from the team's record, not its
// stale file), and A sees that; the one who handed it off no longer holds it, on either hub.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fixture } from '../../support/hooks.ts';
import { eventually, startTeam, type Team, type TeamHub } from '../../support/team.ts';

let team: Team;
let a: TeamHub;
let b: TeamHub;

async function call<T>(h: TeamHub, method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await h.app.inject({
    method,
    url,
    headers: { host: new URL(h.url).host },
    ...(payload ? { payload } : {}),
  });
  return res.json() as { data: T; error?: { category: string; message: string } };
}
const holder = async (h: TeamHub, id: string) =>
  (await call<{ agent_session: string | null; status: string }>(h, 'GET', `/api/board/tasks/${id}`)).data
    .agent_session;
const hook = (h: TeamHub, session: string) =>
  call(
    h,
    'POST',
    '/api/hooks/events?client=claude-code',
    fixture('claude-code', 'session-start', h.config.repo, { session_id: session }),
  );

before(async () => {
  team = await startTeam(2, 3);
  [a, b] = team.hubs as [TeamHub, TeamHub];
  await hook(a, 'ana');
  await hook(a, 'ben');
  await hook(b, 'cy');
  // B hears of A's agents through the team.
  await eventually(
    async () => {
      const agents = await call<{ entries: { id: string }[] }>(b, 'GET', '/api/presence/agents');
      return agents.data.entries.some((x) => x.id === 'ben');
    },
    5000,
    'A’s agents on B',
  );
});
after(() => team?.close());

test('a handoff on one machine shows on the other at once, and a person there hands it on from the team’s record', async () => {
  const claimed = await call<{ task: { id: string } }>(a, 'POST', '/api/board/claim-next', {
    agent_session: 'ana',
  });
  const id = claimed.data.task.id;
  const first = await call<{ from: string; to: string }>(a, 'POST', `/api/board/tasks/${id}/handoff`, {
    to: 'ben',
    note: 'half done',
    agent_session: 'ana',
  });
  assert.equal(first.error, undefined, JSON.stringify(first.error));
  await eventually(async () => (await holder(b, id)) === 'ben', 1000, 'the new holder on B within a second');

  // B's clone never got A's file: a person on B hands the task to B's own agent.
  const second = await call<{ from: string; to: string }>(b, 'POST', `/api/board/tasks/${id}/handoff`, {
    to: 'cy',
    note: 'cy takes the rest',
  });
  assert.equal(second.error, undefined, JSON.stringify(second.error));
  assert.equal(second.data.from, 'ben');
  await eventually(async () => (await holder(a, id)) === 'cy', 1000, 'the next holder on A');
  // The claimant check reads the team's record too: ben no longer holds it, wherever it asks.
  const stale = await call(a, 'POST', `/api/board/tasks/${id}/handoff`, {
    to: 'ana',
    note: 'back to ana',
    agent_session: 'ben',
  });
  assert.equal(stale.error?.category, 'permission');
  assert.equal(await holder(a, id), 'cy');
  assert.equal(await holder(b, id), 'cy');
});
