// Agents across machines on a real PostgreSQL, with real hubs on clones of one bare origin (machine A on
// branch feature/a): hook events posted to A show on B's agents list and activity with A's machine and
// branch, and on B's event stream within a second; B's pre-edit hook for a file A's agent edited warns
// (or refuses) naming that agent, machine-a and its branch; a claim made on A holds its task's files
// against B's agents, and B never reclaims it; A's MCP sessions show on B; a hub started later, or restarted, loads the team's
// agents and recent events, each event kept once; tool calls reach PostgreSQL with their machine; with
// the database stopped hooks are answered at once and their events arrive once it is back.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { fixture } from '../../support/hooks.ts';
import { connectClient } from '../../support/hub.ts';
import { ownCluster, type PgCluster, type TestDatabase, teamDatabaseUrl } from '../../support/postgres.ts';
import { openSse } from '../../support/sse.ts';
import {
  eventually,
  git,
  restData,
  startTeamHub,
  type TeamHub,
  type TeamRepos,
  taskFile,
  teamRepos,
} from '../../support/team.ts';

interface Agent {
  id: string;
  machine: string;
  branch: string | null;
  lifecycle: string;
  files: { path: string }[];
}

interface HookEvent {
  id: number;
  at: number;
  event: string;
  summary: string;
  agent: string;
  kind: string;
  phase: string | null;
  machine: string;
  branch: string | null;
  files: { path: string; role: string }[];
}

interface HookAnswer {
  systemMessage?: string;
  hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
}

const call = restData;

/** Posts one recorded Claude Code hook payload for `session` to hub `h`, as the client does. */
async function hook(
  h: TeamHub,
  session: string,
  name: string,
  file?: string,
): Promise<{ answer: HookAnswer; ms: number }> {
  const repo = h.config.repo;
  const payload = fixture('claude-code', name, repo, {
    session_id: session,
    ...(file
      ? {
          tool_input: { file_path: `${repo}/${file}`, old_string: 'a', new_string: 'b' },
          ...(name.startsWith('post') ? { tool_response: { filePath: `${repo}/${file}` } } : {}),
        }
      : {}),
  });
  const t0 = performance.now();
  const res = await fetch(`${h.url}/api/hooks/events?client=claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  const ms = performance.now() - t0;
  assert.equal(res.status, 200);
  return { answer: (await res.json()) as HookAnswer, ms };
}

const agents = async (h: TeamHub) =>
  (await call<{ entries: Agent[] }>(h, 'GET', '/api/presence/agents')).entries;
/** The events hooks reported (not the refreshes the hub adds after an edit, on its own timer). */
const activity = async (h: TeamHub, query: string) =>
  (await call<{ entries: HookEvent[] }>(h, 'GET', `/api/agents/activity?limit=200&${query}`)).entries.filter(
    (e) => e.kind !== 'refresh',
  );
const setConflicts = (h: TeamHub, conflicts: string) =>
  call(h, 'PATCH', '/api/settings/hooks', { conflicts });

async function pgRows<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('agents across machines', () => {
  let repos: TeamRepos;
  let db: TestDatabase;
  let a: TeamHub;
  let b: TeamHub;
  const hubs: TeamHub[] = [];

  before(async () => {
    repos = teamRepos(3, 1, 'team-agents');
    // The one task's references name src/held.ts, in every clone before the hubs start.
    writeFileSync(
      join(repos.clones[0]!, 'docs', 'tasks', 'TASK-1.md'),
      taskFile(1, { references: '[src/held.ts]' }),
    );
    repos.push(0, 'a task holding src/held.ts');
    repos.pull(1);
    repos.pull(2);
    git(repos.clones[0]!, 'checkout', '-q', '-b', 'feature/a');
    db = await teamDatabaseUrl();
    a = await startTeamHub(repos.clones[0]!, db.url, 'machine-a');
    b = await startTeamHub(repos.clones[1]!, db.url, 'machine-b');
    hubs.push(a, b);
  });
  after(async () => {
    await Promise.all(hubs.map((h) => h.close()));
    await db.drop();
    repos.remove();
  });

  test("A's hook events show on B's agents list and activity with machine-a and A's branch, and on B's stream within a second", async () => {
    const sse = await openSse(`${b.url}/api/stream/events`);
    try {
      await hook(a, 'alpha', 'session-start');
      await hook(a, 'alpha', 'pre-tool-use-edit', 'src/x.ts');
      const posted = performance.now();
      await hook(a, 'alpha', 'post-tool-use-edit', 'src/x.ts');
      const streamed = await sse.waitFor((e) => {
        const d = e.data as Partial<HookEvent>;
        return e.event === 'agent-event' && d.agent === 'alpha' && d.kind === 'edit' && d.phase === 'post';
      }, 1000);
      assert.ok(performance.now() - posted < 1000, 'on B’s stream within a second');
      const data = streamed.data as HookEvent;
      assert.equal(data.machine, 'machine-a');
      assert.equal(data.branch, 'feature/a');
      assert.deepEqual(data.files, [{ path: 'src/x.ts', role: 'edit' }]);

      const alpha = await eventually(
        async () => (await agents(b)).find((x) => x.id === 'alpha'),
        1000,
        'alpha on B',
      );
      assert.equal(alpha.machine, 'machine-a');
      assert.equal(alpha.branch, 'feature/a');
      assert.notEqual(alpha.lifecycle, 'ended');
      assert.deepEqual(
        alpha.files.map((f) => f.path),
        ['src/x.ts'],
      );
      const mine = (await agents(a)).find((x) => x.id === 'alpha');
      assert.equal(mine?.machine, 'machine-a', 'A names its own machine');
      assert.equal(mine?.branch, 'feature/a');

      const onB = await activity(b, 'agent=alpha');
      assert.deepEqual(
        onB.map((e) => e.kind),
        ['edit', 'edit', 'session_start'],
      );
      for (const e of onB) assert.equal(e.machine, 'machine-a');
      assert.equal((await activity(b, 'machine=machine-a')).length, 3);
      assert.equal((await activity(b, 'machine=machine-b')).length, 0, 'B’s own machine has none yet');
      assert.equal((await activity(a, 'machine=machine-a')).length, 3, 'A’s own rows are machine-a');
    } finally {
      sse.close();
    }
  });

  test('B’s pre-edit of the file A’s agent edited warns naming the agent, machine-a and branch, and refuses under block', async () => {
    const streamA = await openSse(`${a.url}/api/stream/events`);
    const warned = await hook(b, 'beta', 'pre-tool-use-edit', 'src/x.ts');
    assert.match(
      String(warned.answer.systemMessage),
      /src\/x\.ts was edited less than a minute ago by claude-code alpha on machine-a \(branch feature\/a\)/,
    );
    assert.equal(warned.answer.hookSpecificOutput?.permissionDecision, undefined);
    assert.deepEqual(
      (await hook(b, 'beta', 'pre-tool-use-edit', 'src/other.ts')).answer,
      {},
      'a file nobody else edited',
    );

    await setConflicts(b, 'block');
    try {
      const refused = await hook(b, 'beta', 'pre-tool-use-edit', 'src/x.ts');
      assert.equal(refused.answer.hookSpecificOutput?.permissionDecision, 'deny');
      assert.match(
        String(refused.answer.hookSpecificOutput?.permissionDecisionReason),
        /claude-code alpha on machine-a \(branch feature\/a\)/,
      );
    } finally {
      await setConflicts(b, 'warn');
    }
    // The conflicts B recorded reach A's activity too, as machine-b's.
    const onA = await eventually(
      async () => {
        const list = await activity(a, 'agent=beta&kind=conflict');
        return list.length === 2 && list;
      },
      2000,
      'B’s conflicts on A',
    );
    for (const e of onA) assert.equal(e.machine, 'machine-b');
    // …and A's stream announced them as conflicts, with where they happened.
    try {
      const conflict = await streamA.waitFor((e) => e.event === 'agent-conflict', 2000);
      const d = conflict.data as { agent: string; machine: string; hits?: { path: string }[] };
      assert.equal(d.agent, 'beta');
      assert.equal(d.machine, 'machine-b');
    } finally {
      streamA.close();
    }
  });

  test('a claim on A holds its task’s files against B’s agents, and B never reclaims it', async () => {
    for (const h of hubs)
      writeFileSync(join(h.config.stateDir, 'board.json'), JSON.stringify({ wip: { in_progress: null } }));
    await hook(a, 'claimer', 'session-start');
    await eventually(async () => (await agents(b)).some((x) => x.id === 'claimer'), 1000, 'claimer on B');
    const claimed = await call<{ claimed: boolean; task: { id: string } | null }>(
      a,
      'POST',
      '/api/board/claim-next',
      { agent_session: 'claimer' },
    );
    assert.equal(claimed.task?.id, 'TASK-1');
    await eventually(
      async () =>
        (await call<{ status: string }>(b, 'GET', '/api/board/tasks/TASK-1')).status === 'in_progress',
      1000,
      'the claim on B',
    );
    const warned = await hook(b, 'beta', 'pre-tool-use-edit', 'src/held.ts');
    assert.match(
      String(warned.answer.systemMessage),
      /src\/held\.ts belongs to TASK-1 "Task 1" claimed by claude-code claimer on machine-a \(branch feature\/a\)/,
    );

    // The claimant's session ends on A: only A may judge it gone and reclaim its task.
    await hook(a, 'claimer', 'session-end');
    await eventually(
      async () => !(await agents(b)).some((x) => x.id === 'claimer'),
      1000,
      'the end of the claimer on B',
    );
    const onB = await call<{
      entries: { task: { id: string }; state: string; reason: string; released: boolean }[];
    }>(b, 'POST', '/api/board/reclaim', { dry_run: false });
    const entry = onB.entries.find((e) => e.task.id === 'TASK-1');
    assert.equal(entry?.state, 'unknown');
    assert.equal(entry?.released, false);
    assert.match(String(entry?.reason), /claimed on machine-a/);
    const next = await call<{ claimed: boolean }>(b, 'POST', '/api/board/claim-next', {
      agent_session: 'beta',
    });
    assert.equal(next.claimed, false, 'claim-next on B does not take the task back either');
    const shown = await call<{ status: string; agent_session?: string }>(b, 'GET', '/api/board/tasks/TASK-1');
    assert.equal(shown.status, 'in_progress');
    assert.equal(shown.agent_session, 'claimer');
    // A, which heard the session end, says it may reclaim it.
    const onA = await call<{ entries: { task: { id: string }; state: string; reclaimable: boolean }[] }>(
      a,
      'POST',
      '/api/board/reclaim',
      { dry_run: true },
    );
    assert.deepEqual(
      onA.entries.filter((e) => e.task.id === 'TASK-1').map((e) => [e.state, e.reclaimable]),
      [['ended', true]],
    );
  });

  test('an MCP session on A shows on B with machine-a and its branch, and leaves when it closes', async () => {
    const mcp = await connectClient(a.url);
    const id = (mcp.transport as unknown as { sessionId: string }).sessionId;
    try {
      const seen = await eventually(
        async () => (await agents(b)).find((x) => x.id === id),
        1000,
        'the MCP session on B',
      );
      assert.equal(seen.machine, 'machine-a');
      assert.equal(seen.branch, 'feature/a');
      const row = await pgRows<{ source: string; machine: string }>(
        db.url,
        'SELECT source, machine FROM team_agents WHERE id = $1',
        [id],
      );
      assert.deepEqual(row, [{ source: 'mcp', machine: 'machine-a' }]);
    } finally {
      await (mcp.transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
      await mcp.close();
    }
    await eventually(async () => !(await agents(b)).some((x) => x.id === id), 2000, 'its end on B');
  });

  test('tool calls reach PostgreSQL with their machine', async () => {
    await call(a, 'GET', '/api/presence/agents');
    await call(b, 'GET', '/api/presence/agents');
    const rows = await eventually(
      async () => {
        const r = await pgRows<{ machine: string; transport: string; ok: boolean }>(
          db.url,
          "SELECT machine, transport, ok FROM team_tool_calls WHERE tool = 'cos_presence_query' ORDER BY machine",
        );
        const machines = new Set(r.map((x) => x.machine));
        return machines.has('machine-a') && machines.has('machine-b') && r;
      },
      3000,
      'the calls in team_tool_calls',
    );
    assert.ok(rows.every((r) => r.transport === 'rest' && r.ok === true));
  });

  test('a hub started after the events loads them, and a restarted hub keeps each event once', async () => {
    for (const h of hubs) await h.hub.services.team!.drain();
    const inPg = await pgRows<{ n: string }>(
      db.url,
      "SELECT count(*) AS n FROM team_hook_events WHERE agent = 'alpha' AND kind <> 'refresh'",
    );
    assert.equal(Number(inPg[0]!.n), 3, 'each of alpha’s events once in PostgreSQL');

    const c = await startTeamHub(repos.clones[2]!, db.url, 'machine-c');
    hubs.push(c);
    const alpha = (await agents(c)).find((x) => x.id === 'alpha');
    assert.equal(alpha?.machine, 'machine-a', 'loaded at start');
    assert.equal(alpha?.branch, 'feature/a');
    assert.equal((await activity(c, 'agent=alpha')).length, 3);
    const warned = await hook(c, 'gamma', 'pre-tool-use-edit', 'src/x.ts');
    assert.match(String(warned.answer.systemMessage), /claude-code alpha on machine-a \(branch feature\/a\)/);

    // B again, on the same clone and hub.db: the events it kept before are not kept twice.
    // (Other machines' events are numbered afresh by each run of a hub: they are compared by what they say.)
    const said = (e: HookEvent) => `${e.at} ${e.event} ${e.summary}`;
    const before = (await activity(b, 'machine=machine-a')).map(said);
    await b.close();
    hubs.splice(hubs.indexOf(b), 1);
    b = await startTeamHub(repos.clones[1]!, db.url, 'machine-b');
    hubs.push(b);
    await b.hub.services.agents.idle();
    const again = await activity(b, 'machine=machine-a');
    assert.deepEqual(again.map(said), before, 'the same events, once each');
    assert.equal(
      (await agents(b)).find((x) => x.id === 'alpha')?.machine,
      'machine-a',
      'alpha still on B after its restart',
    );
  });
});

describe('agents across machines while the database is away', () => {
  let cluster: PgCluster;
  let repos: TeamRepos;
  let hubs: TeamHub[] = [];
  let paused = false;

  before(async () => {
    cluster = await ownCluster();
    repos = teamRepos(2, 0, 'team-agents-down');
    const db = await teamDatabaseUrl(cluster.adminUrl);
    hubs = [
      await startTeamHub(repos.clones[0]!, db.url, 'machine-a'),
      await startTeamHub(repos.clones[1]!, db.url, 'machine-b'),
    ];
  });
  after(async () => {
    if (paused) cluster.resume();
    await Promise.all(hubs.map((h) => h.close()));
    cluster.stop();
    repos.remove();
  });

  test('hooks are answered at once while PostgreSQL is stopped, and their events reach B after it is back', async () => {
    const [a, b] = hubs as [TeamHub, TeamHub];
    await hook(a, 'before', 'session-start');
    await eventually(async () => (await agents(b)).some((x) => x.id === 'before'), 1000, 'before on B');

    cluster.pause();
    paused = true;
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      times.push(
        (await hook(a, 'during', i === 0 ? 'session-start' : 'post-tool-use-edit', `src/d${i}.ts`)).ms,
      );
    }
    // Waiting on the database would take its connect timeout (3 s) at least; a loaded 2-core machine
    // can take a few hundred ms for any request, so the bound is between the two.
    const worst = Math.max(...times);
    const median = [...times].sort((x, y) => x - y)[10]!;
    assert.ok(worst < 1000, `every hook answered at once (worst ${worst.toFixed(0)} ms)`);
    assert.ok(median < 100, `hooks answered as fast as ever (median ${median.toFixed(0)} ms)`);
    const held = a.hub.services.team!.status().outbox;
    assert.ok(held >= 20, `the outbox holds the events (${held})`);
    assert.equal((await activity(a, 'agent=during')).length, 20, 'A keeps them locally meanwhile');
    assert.ok(!(await agents(b)).some((x) => x.id === 'during'));

    cluster.resume();
    paused = false;
    await eventually(
      async () => (await activity(b, 'agent=during')).length === 20,
      20_000,
      'the events on B after the database is back',
    );
    const during = (await agents(b)).find((x) => x.id === 'during');
    assert.equal(during?.machine, 'machine-a');
    await eventually(() => a.hub.services.team!.status().outbox === 0, 5000, 'the outbox drained');
  });
});
