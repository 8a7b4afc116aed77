// The board across machines on a real PostgreSQL, with real hubs on clones of one bare origin: claims
// from many agents on many hubs hand every task out once; a claim and a move on one hub read back on
// another within a second (board, show, event stream), with the machine; git bringing the file changes
// nothing shown; a database stopped under running hubs refuses claims and moves retryably and changes
// nothing, and every acknowledged claim is in PostgreSQL; two machines never create one TASK-n.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ownCluster, PG_PASSWORD, type PgCluster, teamDatabaseUrl } from '../../support/postgres.ts';
import { openSse } from '../../support/sse.ts';
import {
  eventually,
  git,
  startTeam,
  startTeamHub,
  type Team,
  type TeamHub,
  teamRepos,
} from '../../support/team.ts';

interface Envelope<T = Record<string, unknown>> {
  ok: boolean;
  data: T;
  error?: { category: string; message: string; retryable?: boolean };
}

interface Card {
  id: string;
  status: string;
  agent_session?: string;
  machine?: string;
  version: number;
}

async function call<T = Record<string, unknown>>(
  h: TeamHub,
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  payload?: object,
): Promise<{ status: number; body: Envelope<T> }> {
  const res = await h.app.inject({
    method,
    url,
    headers: { host: new URL(h.url).host },
    ...(payload ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.json() as Envelope<T> };
}

const claimNext = (h: TeamHub, agent: string) =>
  call<{ claimed: boolean; task: Card | null; message: string }>(h, 'POST', '/api/board/claim-next', {
    agent_session: agent,
  });
const move = (h: TeamHub, id: string, to: string, extra: object = {}) =>
  call<{ task: Card }>(h, 'POST', `/api/board/tasks/${id}/move`, { to, ...extra });
const show = async (h: TeamHub, id: string) =>
  (await call<Card>(h, 'GET', `/api/board/tasks/${id}`)).body.data;

/** Every card of the board, by id (all columns, archive included). */
async function cards(h: TeamHub): Promise<Map<string, Card>> {
  const { body } = await call<{ columns: { cards: Card[] }[]; parse_error_count: number }>(
    h,
    'GET',
    '/api/board/list?limit=500&include_archive=true',
  );
  const out = new Map<string, Card>();
  for (const column of body.data.columns)
    for (const c of column.cards) {
      assert.ok(!out.has(c.id), `${c.id} shows once`);
      out.set(c.id, c);
    }
  return out;
}

/** No WIP caps: these tests count claims, not caps. */
function uncapped(h: TeamHub): void {
  writeFileSync(
    join(h.config.stateDir, 'board.json'),
    JSON.stringify({ wip: { in_progress: null, testing: null, emergency: null } }),
  );
}

const taskText = (h: TeamHub, n: number) => readFileSync(join(h.config.tasksDir, `TASK-${n}.md`), 'utf8');

describe('claims from many agents on many hubs', () => {
  let team: Team;
  before(async () => {
    team = await startTeam(3, 20);
    for (const h of team.hubs) uncapped(h);
  });
  after(() => team.close());

  test('24 agents on 3 hubs claiming 20 tasks at once: every task is handed out exactly once', async () => {
    const agents = Array.from({ length: 24 }, (_, i) => ({ agent: `agent-${i}`, hub: team.hubs[i % 3]! }));
    const answers = await Promise.all(
      agents.map(async (a) => ({ ...a, answer: await claimNext(a.hub, a.agent) })),
    );
    for (const a of answers) assert.equal(a.answer.status, 200, JSON.stringify(a.answer.body));
    const won = answers.filter((a) => a.answer.body.data.claimed);
    const ids = won.map((a) => a.answer.body.data.task!.id);
    assert.equal(ids.length, 20, 'every task claimed');
    assert.equal(new Set(ids).size, 20, 'no task handed to two agents');
    assert.equal(answers.filter((a) => !a.answer.body.data.claimed).length, 4);
    for (const a of won) assert.equal(a.answer.body.data.task!.machine, a.hub.config.machine);

    // PostgreSQL's records say the same: each task held by the agent told so, from that agent's machine.
    const rows = await team.hubs[0]!.database.query<{ key: string; agent_session: string; machine: string }>(
      "SELECT key, agent_session, machine FROM team_tasks WHERE status = 'in_progress' ORDER BY key",
    );
    assert.equal(rows.length, 20);
    const told = new Map(won.map((a) => [a.answer.body.data.task!.id, a]));
    for (const r of rows) {
      const a = told.get(r.key);
      assert.ok(a, `${r.key} was acknowledged to an agent`);
      assert.equal(r.agent_session, a.agent);
      assert.equal(r.machine, a.hub.config.machine);
    }

    // Every hub shows the same 20 claims, each with its holder and machine.
    for (const h of team.hubs)
      await eventually(
        async () => {
          const board = await cards(h);
          return [...board.values()].every((c) => {
            const a = told.get(c.id);
            return (
              a !== undefined &&
              c.status === 'in_progress' &&
              c.agent_session === a.agent &&
              c.machine === a.hub.config.machine
            );
          });
        },
        2000,
        `${h.config.machine} showing every claim`,
      );
    for (const h of team.hubs)
      assert.ok(
        won.some((a) => a.hub === h),
        `${h.config.machine} handed out some of the tasks`,
      );
    // Nothing is left to claim anywhere.
    for (const h of team.hubs) assert.equal((await claimNext(h, 'late')).body.data.claimed, false);

    // A hub that starts later reads the records at start: it shows every claim at once.
    const clone = join(team.repos.root, 'machine-late');
    git(team.repos.root, 'clone', '-q', team.repos.origin, clone);
    const late = await startTeamHub(clone, team.db.url, 'machine-late');
    try {
      const board = await cards(late);
      assert.equal(board.size, 20);
      for (const [id, c] of board) {
        assert.equal(c.status, 'in_progress', id);
        assert.equal(c.agent_session, told.get(id)?.agent);
        assert.equal(c.machine, told.get(id)?.hub.config.machine);
      }
      assert.equal((await claimNext(late, 'later')).body.data.claimed, false);
    } finally {
      await late.close();
    }
  });
});

describe('one hub reads back what another did', () => {
  let team: Team;
  let a: TeamHub;
  let b: TeamHub;
  before(async () => {
    team = await startTeam(2, 5);
    [a, b] = team.hubs as [TeamHub, TeamHub];
    for (const h of team.hubs) uncapped(h);
  });
  after(() => team.close());

  test('a claim and a move on A read back on B within a second, with the machine, on its stream too', async () => {
    const sse = await openSse(`${b.url}/api/stream/events`);
    try {
      const claimed = (await claimNext(a, 'agent-a1')).body.data;
      assert.equal(claimed.claimed, true);
      const id = claimed.task!.id;
      const started = Date.now();
      const onB = await eventually(
        async () => {
          const c = (await cards(b)).get(id);
          return c?.status === 'in_progress' && c;
        },
        1000,
        'the claim on B',
      );
      assert.equal(onB.agent_session, 'agent-a1');
      assert.equal(onB.machine, 'machine-a');
      assert.equal(onB.version, claimed.task!.version);
      const shown = await show(b, id);
      assert.equal(shown.status, 'in_progress');
      assert.equal(shown.agent_session, 'agent-a1');
      assert.equal(shown.machine, 'machine-a');
      // B's own file still says icebox: git has not brought A's yet.
      assert.match(taskText(b, Number(id.slice(5))), /status: icebox/);

      const moved = await move(a, id, 'testing', { agent_session: 'agent-a1' });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      const event = await sse.waitFor(
        (e) =>
          e.event === 'task-updated' &&
          (e.data as { task_id: string; new_status: string }).task_id === id &&
          (e.data as { new_status: string }).new_status === 'testing',
        1000,
      );
      assert.ok(Date.now() - started < 3000);
      assert.deepEqual(
        {
          change: (event.data as { change: string }).change,
          old: (event.data as { old_status: string }).old_status,
          machine: (event.data as { machine: string }).machine,
        },
        { change: 'moved', old: 'in_progress', machine: 'machine-a' },
      );
      assert.ok(
        sse.events.some(
          (e) =>
            e.event === 'task-updated' &&
            (e.data as { change: string; task_id: string }).change === 'claimed' &&
            (e.data as { task_id: string }).task_id === id,
        ),
        "B's stream carried the claim too",
      );
      const after = await show(b, id);
      assert.equal(after.status, 'testing');
      assert.equal(after.machine, 'machine-a');
      assert.equal(after.version, moved.body.data.task.version);
      // B's claim-next cannot take it, and a move of it on B starts from what A did.
      const refused = await move(b, id, 'in_progress');
      assert.equal(refused.status, 200, 'testing → in_progress is allowed, from the state B shows');
      assert.equal(refused.body.data.task.machine, 'machine-b');
      await eventually(async () => (await show(a, id)).machine === 'machine-b', 1000, 'B’s move on A');
      const back = await move(a, id, 'testing');
      assert.equal(back.status, 200, JSON.stringify(back.body));
      await eventually(async () => (await show(b, id)).status === 'testing', 1000, 'A’s move on B');
    } finally {
      sse.close();
    }
  });

  test("the daily on each hub names the machine of every start, this hub's own included", async () => {
    const onA = (await claimNext(a, 'agent-a2')).body.data.task!.id;
    const onB = (await claimNext(b, 'agent-b2')).body.data.task!.id;
    type Daily = { started: { id: string; who: string | null; machine: string | null }[] };
    for (const h of [a, b])
      await eventually(
        async () => {
          const started = (await call<Daily>(h, 'GET', '/api/board/daily')).body.data.started;
          const of = (id: string) => started.find((s) => s.id === id);
          return (
            of(onA)?.machine === 'machine-a' &&
            of(onA)?.who === 'agent-a2' &&
            of(onB)?.machine === 'machine-b' &&
            of(onB)?.who === 'agent-b2'
          );
        },
        1000,
        `both starts with their machines in ${h.config.machine}'s daily`,
      );
  });
});

describe('git brings the file', () => {
  let team: Team;
  let a: TeamHub;
  let b: TeamHub;
  before(async () => {
    team = await startTeam(2, 5);
    [a, b] = team.hubs as [TeamHub, TeamHub];
    for (const h of team.hubs) uncapped(h);
  });
  after(() => team.close());

  test('B shows the task once, as before, with no parse error or conflict', async () => {
    const claimed = (await claimNext(a, 'agent-a2')).body.data;
    const id = claimed.task!.id;
    const n = Number(id.slice(5));
    await eventually(async () => (await show(b, id)).status === 'in_progress', 1000, 'the claim on B');
    const before = await cards(b);
    team.repos.push(0, 'claims on machine-a');
    team.repos.pull(1);
    assert.match(taskText(b, n), /status: in_progress/);
    // The watcher reads the file git wrote; B's row now shows its own file, which says the same.
    await eventually(
      () => {
        const row = b.hub.services.board.store.get(n);
        return row !== undefined && row.file_version === null && /in_progress/.test(row.status);
      },
      3000,
      'B indexing the file git brought',
    );
    const now = await cards(b);
    assert.equal(now.size, before.size);
    for (const [key, card] of before) assert.deepEqual(now.get(key), card, `${key} shows as it did`);
    const { body } = await call<{ total: number }>(b, 'GET', '/api/board/list');
    assert.equal((body as unknown as { meta: { parse_error_count: number } }).meta.parse_error_count, 0);
    assert.equal(body.data.total, 5);
    assert.equal((await show(b, id)).machine, 'machine-a');
    assert.equal((await show(b, id)).version, claimed.task!.version);
    // And a change on B from here on starts from the file git brought.
    const done = await move(b, id, 'testing');
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.data.task.version, claimed.task!.version + 1);
  });
});

describe('two machines creating tasks at once', () => {
  let team: Team;
  before(async () => {
    team = await startTeam(2, 3);
  });
  after(() => team.close());

  test('never create the same TASK-n', async () => {
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call<{ task: Card }>(team.hubs[i % 2]!, 'POST', '/api/board/tasks', { title: `new ${i}` }),
      ),
    );
    for (const c of created) assert.equal(c.status, 200, JSON.stringify(c.body));
    const ids = created.map((c) => c.body.data.task.id);
    assert.equal(new Set(ids).size, 20);
    assert.ok(
      ids.every((id) => Number(id.slice(5)) > 3),
      'after the tasks every clone has',
    );
    // Each clone has only its own new files, and together they are the 20 ids.
    const files = team.hubs.map((h) => readdirSync(h.config.tasksDir).filter((f) => /^TASK-\d+-/.test(f)));
    assert.equal(files[0]!.length + files[1]!.length, 20);
  });
});

describe('the database stopped under running hubs', () => {
  let cluster: PgCluster;
  let hubs: TeamHub[] = [];
  let repos: ReturnType<typeof teamRepos>;
  let paused = false;
  before(async () => {
    cluster = await ownCluster();
    repos = teamRepos(2, 6, 'team-down');
    const db = await teamDatabaseUrl(cluster.adminUrl);
    hubs = [
      await startTeamHub(repos.clones[0]!, db.url, 'machine-a'),
      await startTeamHub(repos.clones[1]!, db.url, 'machine-b'),
    ];
    for (const h of hubs) uncapped(h);
  });
  after(async () => {
    if (paused) cluster.resume();
    await Promise.all(hubs.map((h) => h.close()));
    cluster.stop();
    repos.remove();
  });

  test('claims and moves answer unavailable within seconds and change nothing; then are accepted again', async () => {
    const [a, b] = hubs as [TeamHub, TeamHub];
    const acknowledged: { id: string; agent: string }[] = [];
    const first = (await claimNext(a, 'agent-1')).body.data;
    acknowledged.push({ id: first.task!.id, agent: 'agent-1' });
    await eventually(async () => (await show(b, first.task!.id)).status === 'in_progress', 1000, 'B');
    const filesBefore = hubs.map((h) => [1, 2, 3, 4, 5, 6].map((n) => taskText(h, n)));
    const boardsBefore = await Promise.all(hubs.map(cards));

    cluster.pause();
    paused = true;
    for (const [h, what] of [
      [a, () => claimNext(a, 'agent-2')],
      [b, () => claimNext(b, 'agent-3')],
      [a, () => move(a, first.task!.id, 'testing')],
      [b, () => move(b, 'TASK-6', 'emergency')],
      [b, () => call(b, 'POST', '/api/board/tasks', { title: 'while down' })],
    ] as const) {
      const started = Date.now();
      const out = await what();
      assert.ok(Date.now() - started < 5000, `${h.config.machine} answered in ${Date.now() - started} ms`);
      assert.equal(out.status, 503, JSON.stringify(out.body));
      assert.equal(out.body.error?.category, 'unavailable');
      assert.equal(out.body.error?.retryable, true);
      assert.ok(!JSON.stringify(out.body).includes(PG_PASSWORD), 'never the password');
    }
    // Nothing changed locally: the files, and what the boards show.
    assert.deepEqual(
      hubs.map((h) => [1, 2, 3, 4, 5, 6].map((n) => taskText(h, n))),
      filesBefore,
    );
    assert.deepEqual(await Promise.all(hubs.map(cards)), boardsBefore);
    assert.equal(readdirSync(b.config.tasksDir).filter((f) => f.includes('while-down')).length, 0);

    cluster.resume();
    paused = false;
    const again = await eventually(
      async () => {
        const r = await claimNext(b, 'agent-3');
        return r.status === 200 && r.body.data;
      },
      15_000,
      'a claim accepted again',
    );
    assert.equal(again.claimed, true);
    acknowledged.push({ id: again.task!.id, agent: 'agent-3' });
    const more = (await claimNext(a, 'agent-2')).body.data;
    assert.equal(more.claimed, true);
    acknowledged.push({ id: more.task!.id, agent: 'agent-2' });
    const moved = await move(a, first.task!.id, 'testing');
    assert.equal(moved.status, 200);

    // Every acknowledged claim is PostgreSQL's.
    const rows = await a.database.query<{ key: string; agent_session: string | null; status: string }>(
      'SELECT key, agent_session, status FROM team_tasks',
    );
    const byKey = new Map(rows.map((r) => [r.key, r]));
    for (const c of acknowledged.slice(1)) {
      assert.equal(byKey.get(c.id)?.status, 'in_progress', c.id);
      assert.equal(byKey.get(c.id)?.agent_session, c.agent, c.id);
    }
    assert.equal(byKey.get(first.task!.id)?.status, 'testing');
    assert.equal(new Set(acknowledged.map((c) => c.id)).size, acknowledged.length);
  });
});
