// Two `cos serve` processes on two clones of one origin, one PostgreSQL: what survives a hub killed with
// -9 in the middle of claims (every acknowledged claim is committed in PostgreSQL, no task handed out
// twice), and a database stopped and started under running hubs (claims refused retryably, then accepted
// again, nothing acknowledged lost).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { HubProcess } from '../../support/hub-process.ts';
import { adminQuery, ownCluster, type PgCluster } from '../../support/postgres.ts';
import { startTeamHubProcess, teamRepos } from '../../support/team.ts';

const TASKS = 60;
let cluster: PgCluster;
const running: HubProcess[] = [];
const made: ReturnType<typeof teamRepos>[] = [];
let repos: ReturnType<typeof teamRepos>;
let database = '';

before(async () => {
  cluster = await ownCluster();
});

after(async () => {
  await Promise.all(running.map((h) => h.stop().catch(() => null)));
  cluster?.stop();
  for (const r of made) r.remove();
});

/** A board of its own for each test: a fresh database and fresh clones. */
async function freshTeam(name: string): Promise<void> {
  database = name;
  await adminQuery(cluster.adminUrl, `CREATE DATABASE ${name}`);
  repos = teamRepos(2, TASKS, name);
  made.push(repos);
}

async function start(i: number): Promise<HubProcess> {
  const hub = await startTeamHubProcess(repos.clones[i]!, cluster.url(database), `machine-${'ab'[i]}`);
  running.push(hub);
  return hub;
}

interface Claim {
  status: number;
  claimed: boolean;
  task: string | null;
  category?: string;
  retryable?: boolean;
}

async function claim(hub: HubProcess, agent: string): Promise<Claim> {
  const res = await fetch(`${hub.url}/api/board/claim-next`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // These tests count claims, not the WIP cap (the board's default of 3 would end them early).
    body: JSON.stringify({ agent_session: agent, bypass_wip: true, reason: 'counting claims' }),
    signal: AbortSignal.timeout(20_000),
  });
  const body = (await res.json()) as {
    data?: { claimed: boolean; task: { id: string } | null };
    error?: { category: string; retryable: boolean };
  };
  return {
    status: res.status,
    claimed: body.data?.claimed ?? false,
    task: body.data?.task?.id ?? null,
    category: body.error?.category,
    retryable: body.error?.retryable,
  };
}

async function teamClaims(): Promise<Map<string, string>> {
  const rows = await adminQuery(
    cluster.url(database),
    "SELECT key, agent_session FROM team_tasks WHERE status = 'in_progress' AND agent_session IS NOT NULL",
  );
  return new Map(
    (rows.rows as { key: string; agent_session: string }[]).map((r) => [r.key, r.agent_session]),
  );
}

test('kill -9 of a hub mid-claims loses no acknowledged claim and hands no task out twice', async () => {
  await freshTeam('killed');
  const a = await start(0);
  const b = await start(1);
  const acknowledged = new Map<string, string[]>();
  const ack = (task: string, agent: string) =>
    acknowledged.set(task, [...(acknowledged.get(task) ?? []), agent]);
  let killed = false;
  const agents = (hub: HubProcess, prefix: string, rounds: number) =>
    Array.from({ length: 6 }, async (_, n) => {
      const agent = `${prefix}-${n}`;
      for (let r = 0; r < rounds; r++) {
        const c = await claim(hub, agent).catch(() => null);
        if (!c) return; // the hub died under the request: not acknowledged
        if (c.claimed && c.task) ack(c.task, agent);
        else if (c.status === 200) return;
      }
    });
  const killer = (async () => {
    await new Promise((r) => setTimeout(r, 400));
    await a.kill9();
    killed = true;
  })();
  await Promise.all([...agents(a, 'a', 3), ...agents(b, 'b', 2), killer]);
  assert.ok(killed);
  for (const [task, who] of acknowledged)
    assert.equal(who.length, 1, `${task} was handed to ${who.join(' and ')}`);
  const inPg = await teamClaims();
  for (const [task, [agent]] of acknowledged)
    assert.equal(inPg.get(task), agent, `acknowledged claim of ${task} by ${agent} is in PostgreSQL`);

  // A restarted hub on the same clone carries on; the rest of the board goes to the agents exactly once.
  const a2 = await start(0);
  await Promise.all([...agents(a2, 'a2', TASKS), ...agents(b, 'b2', TASKS)]);
  for (const [task, who] of acknowledged)
    assert.equal(who.length, 1, `${task} was handed to ${who.join(' and ')}`);
  const final = await teamClaims();
  for (const [task, [agent]] of acknowledged) assert.equal(final.get(task), agent);
  // Claims that were committed but never answered (the kill) are held by agents of the dead hub: at most
  // the six that were in flight.
  assert.ok(TASKS - acknowledged.size <= 6, `${TASKS - acknowledged.size} tasks unacknowledged`);
  await a2.stop();
  await b.stop();
});

test('PostgreSQL stopped and started under running hubs: claims refused retryably, then accepted', async () => {
  await freshTeam('paused');
  const a = await start(0);
  const b = await start(1);
  cluster.pause();
  const t0 = Date.now();
  const refused = await claim(a, 'down-agent');
  assert.ok(Date.now() - t0 < 8000, `answered in ${Date.now() - t0} ms`);
  assert.equal(refused.status, 503);
  assert.equal(refused.category, 'unavailable');
  assert.equal(refused.retryable, true);
  cluster.resume();
  let accepted: Claim | undefined;
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const c = await claim(b, 'back-agent');
    if (c.status === 200) {
      accepted = c;
      break;
    }
    assert.equal(c.category, 'unavailable');
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(accepted?.claimed && accepted.task, 'a claim is accepted once the database is back');
  assert.equal((await teamClaims()).get(accepted.task), 'back-agent');
  // The refused claim changed nothing: the only claim anywhere is the accepted one.
  assert.equal((await teamClaims()).size, 1);
  await a.stop();
  await b.stop();
});
