// Memory shared by a team, on real hubs over clones of one origin and a real PostgreSQL: what an agent
// records on machine A is found, opened, merged, corrected and forgotten from machine B (REST and MCP),
// each hub's live stream carries the other's writes, and with the database stopped under running hubs
// every memory tool answers `unavailable` (retryable) within seconds, bad input still `validation`, and
// nothing acknowledged is lost once it is back. The password never appears in an answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient } from '../../support/hub.ts';
import { ownCluster, PG_PASSWORD, type PgCluster, teamDatabaseUrl } from '../../support/postgres.ts';
import { openSse, type SseClient, type SseEvent } from '../../support/sse.ts';
import { startTeam, startTeamHub, type Team, type TeamHub, teamRepos } from '../../support/team.ts';

interface Answer {
  status: number;
  body: { data?: Record<string, unknown>; meta?: Record<string, unknown>; error?: Record<string, unknown> };
  text: string;
}

/** Every answer any test saw, to check the password against at the end. */
const seen: string[] = [];

async function call(hub: TeamHub, method: string, path: string, payload?: object): Promise<Answer> {
  const res = await fetch(`${hub.url}${path}`, {
    method,
    headers: payload ? { 'content-type': 'application/json' } : {},
    ...(payload ? { body: JSON.stringify(payload) } : {}),
  });
  const text = await res.text();
  seen.push(text);
  return { status: res.status, body: JSON.parse(text) as Answer['body'], text };
}

const record = (hub: TeamHub, note: Record<string, unknown>) =>
  call(hub, 'POST', '/api/memory/observations', { type: 'fact', ...note });

const observationOf = (a: Answer) => a.body.data?.observation as { id: number; machine?: string };

const memoryEvent =
  (id: number, action: string) =>
  (e: SseEvent): boolean => {
    const d = e.data as { id?: number; action?: string } | null;
    return e.event === 'memory-updated' && d?.id === id && d.action === action;
  };

describe('memory shared by a team', () => {
  let team: Team;
  let a: TeamHub;
  let b: TeamHub;
  let streamA: SseClient;
  let streamB: SseClient;
  let mcpB: Client;

  before(async () => {
    team = await startTeam(2, 1);
    [a, b] = team.hubs as [TeamHub, TeamHub];
    streamA = await openSse(`${a.url}/api/stream/events`);
    streamB = await openSse(`${b.url}/api/stream/events`);
    mcpB = await connectClient(b.url);
  });
  after(async () => {
    await mcpB.close();
    streamA.close();
    streamB.close();
    await team.close();
    for (const text of seen) assert.ok(!text.includes(PG_PASSWORD), 'the database password never shows');
  });

  test('recorded on A: found by cos_search and opened by cos_details on B, naming machine-a; both streams carry it', async () => {
    const created = await record(a, {
      title: 'The flaky e2e test needs a warm cache',
      narrative: 'Run the board suite once before measuring: the first run compiles the grammars.',
      concepts: ['e2e', 'cache'],
      session_id: 'agent-1',
    });
    assert.equal(created.status, 200, created.text);
    const { id, machine } = observationOf(created);
    assert.equal(machine, 'machine-a');

    const found = await call(b, 'GET', '/api/search/memory?query=warm%20cache');
    assert.equal(found.status, 200, found.text);
    const hits = found.body.data?.results as { id: number; machine?: string }[];
    assert.equal(hits[0]?.id, id, found.text);
    assert.equal(hits[0]?.machine, 'machine-a');

    const opened = await call(b, 'GET', `/api/memory/observations/${id}`);
    assert.equal(opened.status, 200, opened.text);
    assert.equal(opened.body.data?.title, 'The flaky e2e test needs a warm cache');
    assert.equal(opened.body.data?.machine, 'machine-a');
    assert.equal(opened.body.data?.access_count, 1);

    // So does the memory layer of B's search over everything.
    const all = await call(b, 'GET', '/api/search?query=warm%20cache&layers=memory');
    const layerHits = all.body.data?.results as { layer: string; open: { observation_id?: number } }[];
    assert.equal(layerHits[0]?.open.observation_id, id, all.text);

    // The MCP face of B finds it too (the team's id opens it anywhere).
    const viaMcp = await mcpB.callTool({ name: 'cos_search', arguments: { query: 'grammars' } });
    const structured = viaMcp.structuredContent as { ok: boolean; data: { results: { id: number }[] } };
    assert.equal(structured.ok, true, JSON.stringify(viaMcp));
    assert.equal(structured.data.results[0]?.id, id);
    seen.push(JSON.stringify(viaMcp));

    const atB = await streamB.waitFor(memoryEvent(id, 'recorded'), 2000);
    assert.deepEqual(atB.data, {
      action: 'recorded',
      id,
      type: 'fact',
      title: 'The flaky e2e test needs a warm cache',
      session_id: 'agent-1',
      machine: 'machine-a',
    });
    await streamA.waitFor(memoryEvent(id, 'recorded'), 2000);
  });

  test('an exact duplicate in one session merges across hubs, even when both record it at once', async () => {
    const note = {
      title: 'Pool size is 8 per hub',
      narrative: 'database.ts bounds it.',
      session_id: 'agent-2',
    };
    const [onA, onB] = await Promise.all([
      record(a, { ...note, confidence: 0.6, files: ['server/team/database.ts'] }),
      record(b, { ...note, confidence: 0.9, files: ['server/team/team.ts'] }),
    ]);
    assert.equal(onA.status, 200, onA.text);
    assert.equal(onB.status, 200, onB.text);
    assert.equal(observationOf(onA).id, observationOf(onB).id, 'one record');
    assert.deepEqual(
      [onA.body.data?.merged, onB.body.data?.merged].sort(),
      [false, true],
      'one inserted, one merged',
    );
    const id = observationOf(onA).id;
    const full = await call(a, 'GET', `/api/memory/observations/${id}`);
    assert.equal(full.body.data?.merged_count, 1);
    assert.equal(full.body.data?.confidence, 0.9);
    assert.deepEqual([...((full.body.data?.files ?? []) as string[])].sort(), [
      'server/team/database.ts',
      'server/team/team.ts',
    ]);
    // Another session's identical note is its own evidence.
    const other = await record(b, { ...note, session_id: 'agent-3' });
    assert.equal(other.body.data?.merged, false);
    assert.notEqual(observationOf(other).id, id);
  });

  test('corrected on B: A reads the correction, and its stream says so', async () => {
    const { id } = observationOf(await record(a, { title: 'Hooks answer at once', session_id: 'agent-4' }));
    const patched = await call(b, 'PATCH', `/api/memory/observations/${id}`, { confidence: 0.95 });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await call(a, 'GET', `/api/memory/observations/${id}`)).body.data?.confidence, 0.95);
    const event = await streamA.waitFor(memoryEvent(id, 'updated'), 2000);
    assert.equal((event.data as { machine?: string }).machine, 'machine-b');
  });

  test('forgotten on B: gone for A, in both forget logs, and no stream carries its text', async () => {
    const { id } = observationOf(
      await record(a, {
        title: 'A wrong belief about retries',
        narrative: 'never-to-be-seen-again',
        session_id: 'agent-5',
      }),
    );
    const gone = await call(b, 'DELETE', `/api/memory/observations/${id}?reason=wrong`);
    assert.equal(gone.status, 200, gone.text);
    assert.equal((await call(a, 'GET', `/api/memory/observations/${id}`)).status, 404);
    const search = await call(a, 'GET', '/api/search/memory?query=never-to-be-seen-again');
    assert.deepEqual(search.body.data?.results, []);
    const logA = await call(a, 'GET', '/api/memory/forgotten');
    const entry = ((logA.body.data?.entries ?? []) as Record<string, unknown>[]).find(
      (e) => e.observation_id === id,
    );
    assert.equal(entry?.reason, 'wrong');
    assert.equal(entry?.machine, 'machine-b');
    assert.ok(!logA.text.includes('never-to-be-seen-again'));
    const event = await streamA.waitFor(memoryEvent(id, 'forgotten'), 2000);
    assert.equal((event.data as { title?: string }).title, undefined);
    assert.ok(!streamA.events.some((e) => JSON.stringify(e.data).includes('never-to-be-seen')));
    // Forgetting twice, from either hub: nothing left to forget.
    assert.equal((await call(a, 'DELETE', `/api/memory/observations/${id}`)).status, 404);
  });

  test("B's timeline lists A's records with their machine", async () => {
    const { id } = observationOf(await record(a, { title: 'Timeline from A', session_id: 'agent-6' }));
    const tl = await call(b, 'GET', '/api/memory/timeline?days=1');
    const entry = ((tl.body.data?.entries ?? []) as { id: number; machine?: string }[]).find(
      (e) => e.id === id,
    );
    assert.equal(entry?.machine, 'machine-a');
  });
});

describe('memory with the team database away', () => {
  let cluster: PgCluster;
  let hubs: TeamHub[] = [];
  let removeRepos = () => {};

  before(async () => {
    cluster = await ownCluster();
    const database = await teamDatabaseUrl(cluster.adminUrl);
    const repos = teamRepos(2, 1, 'memory-down');
    removeRepos = repos.remove;
    hubs = [
      await startTeamHub(repos.clones[0]!, database.url, 'machine-a'),
      await startTeamHub(repos.clones[1]!, database.url, 'machine-b'),
    ];
  });
  after(async () => {
    await Promise.all(hubs.map((h) => h.close()));
    cluster.stop();
    removeRepos();
    for (const text of seen) assert.ok(!text.includes(PG_PASSWORD), 'the database password never shows');
  });

  test('unavailable (retryable) within seconds, validation still validation, and nothing acknowledged lost', async () => {
    const [a, b] = hubs as [TeamHub, TeamHub];
    const acknowledged: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await record(a, { title: `Before the outage ${i}`, session_id: 'agent-9' });
      assert.equal(r.status, 200, r.text);
      acknowledged.push(observationOf(r).id);
    }

    cluster.pause();
    try {
      const attempts: [string, string, object?][] = [
        ['POST', '/api/memory/observations', { title: 'During the outage', type: 'fact' }],
        ['GET', '/api/search/memory?query=outage'],
        ['GET', `/api/memory/observations/${acknowledged[0]}`],
        ['PATCH', `/api/memory/observations/${acknowledged[0]}`, { confidence: 0.1 }],
        ['DELETE', `/api/memory/observations/${acknowledged[1]}`],
        ['GET', '/api/memory/timeline'],
        ['GET', '/api/memory/forgotten'],
      ];
      for (const [method, path, payload] of attempts) {
        const started = Date.now();
        const r = await call(a, method, path, payload);
        const took = Date.now() - started;
        assert.equal(r.status, 503, `${method} ${path}: ${r.text}`);
        assert.equal(r.body.error?.category, 'unavailable', r.text);
        assert.equal(r.body.error?.retryable, true, r.text);
        assert.ok(took < 6000, `${method} ${path} answered in ${took} ms`);
      }
      // Bad input is the caller's to fix whatever the database does.
      const blank = await record(a, { title: '   ' });
      assert.equal(blank.body.error?.category, 'validation', blank.text);
      const syntax = await call(a, 'GET', `/api/search/memory?query=${encodeURIComponent('*()')}`);
      assert.equal(syntax.body.error?.category, 'validation', syntax.text);
      const cursor = await call(a, 'GET', '/api/memory/timeline?before=garbage');
      assert.equal(cursor.body.error?.category, 'validation', cursor.text);
      const untitled = await call(b, 'PATCH', `/api/memory/observations/${acknowledged[0]}`, { title: ' ' });
      assert.equal(untitled.body.error?.category, 'validation', untitled.text);
    } finally {
      cluster.resume();
    }

    // Back by itself: the next write goes through, on either hub.
    const until = Date.now() + 15_000;
    let after: Answer | undefined;
    while (Date.now() < until) {
      after = await record(b, { title: 'After the outage', session_id: 'agent-9' });
      if (after.status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(after?.status, 200, after?.text);
    for (const id of acknowledged) {
      const r = await call(b, 'GET', `/api/memory/observations/${id}`);
      assert.equal(r.status, 200, `acknowledged observation ${id}: ${r.text}`);
      assert.equal(r.body.data?.confidence, 0.7, 'the refused correction changed nothing');
    }
    const during = await call(b, 'GET', '/api/search/memory?query=during');
    assert.equal(during.body.error, undefined, during.text);
    assert.deepEqual(during.body.data?.results, [], 'the refused record was never written');
  });
});
