// The team database lost and found under running hubs: cos_health names the problem (never the
// password) within seconds, local reads go on, and once PostgreSQL is back the hub reconnects by itself:
// the listener too, so other hubs' news arrives again without a restart.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TeamEntry } from '../../../server/team/feed.ts';
import { adminQuery, ownCluster, PG_PASSWORD, type PgCluster } from '../../support/postgres.ts';
import { eventually, startTeamHub, type TeamHub, teamRepos } from '../../support/team.ts';

let cluster: PgCluster;
let repos: ReturnType<typeof teamRepos>;
let a: TeamHub;
let b: TeamHub;

before(async () => {
  cluster = await ownCluster();
  await adminQuery(cluster.adminUrl, 'CREATE DATABASE team');
  repos = teamRepos(2, 3, 'health');
  a = await startTeamHub(repos.clones[0]!, cluster.url('team'), 'machine-a');
  b = await startTeamHub(repos.clones[1]!, cluster.url('team'), 'machine-b');
});

after(async () => {
  await a?.close();
  await b?.close();
  cluster?.stop();
  repos?.remove();
});

async function health(hub: TeamHub) {
  const res = await hub.app.inject({ method: 'GET', url: '/api/health' });
  assert.equal(res.statusCode, 200);
  assert.ok(!res.body.includes(PG_PASSWORD), 'the password never shows');
  return res.json().data as {
    status: string;
    problems: string[];
    team?: { team: string; machine: string; database: string; state: string; listening: boolean };
  };
}

test('cos_health names the team, then the lost database, then its return', async () => {
  const ok = await health(a);
  assert.equal(ok.status, 'ok', ok.problems.join('; '));
  assert.equal(ok.team?.machine, 'machine-a');
  assert.equal(ok.team?.team, repos.origin.replace(/\.git$/, ''));
  assert.equal(ok.team?.database, `127.0.0.1:${cluster.port}/team`);
  assert.equal(ok.team?.state, 'connected');
  assert.equal(ok.team?.listening, true);

  cluster.pause();
  const down = await eventually(
    async () => {
      const h = await health(a);
      return h.status === 'degraded' ? h : undefined;
    },
    8000,
    'a degraded health',
  );
  assert.equal(down.team?.state, 'down');
  assert.match(
    down.problems.join('\n'),
    new RegExp(`team database 127\\.0\\.0\\.1:${cluster.port}/team is unreachable`),
  );
  // Local reads go on: the board answers from the clone's files.
  const board = await a.app.inject({ method: 'GET', url: '/api/board/list' });
  assert.equal(board.statusCode, 200);

  cluster.resume();
  const back = await eventually(
    async () => {
      const h = await health(a);
      return h.status === 'ok' && h.team?.listening ? h : undefined;
    },
    15_000,
    'health ok again',
  );
  assert.equal(back.team?.state, 'connected');

  // The listener reconnected: B's news reaches A again.
  const seen: TeamEntry[] = [];
  a.hub.services.team!.feed.on('test.after-resume', (e) => seen.push(e));
  await b.hub.services.team!.feed.publish([{ kind: 'test.after-resume', body: {} }]);
  await eventually(() => seen.length === 1, 2000, "B's entry at A after the restart");
  assert.equal(seen[0]!.machine, 'machine-b');
});
