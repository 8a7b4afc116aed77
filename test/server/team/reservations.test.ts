// File reservations across machines on a real PostgreSQL, with real hubs on clones of one bare origin: a
// reservation granted on A (over MCP, the official SDK client) reaches B's list and stream with machine-a
// within a second, refuses B's agent naming A's agent and machine, and B's pre-edit hook warns (or
// refuses) naming them too; overlapping exclusive reservations asked of both hubs at the same moment are
// granted exactly once; a person's release on B frees the files on A; SessionEnd on A ends its agent's
// reservations on every hub; a hub started later loads the team's live reservations.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fixture } from '../../support/hooks.ts';
import { connectClient } from '../../support/hub.ts';
import { openSse } from '../../support/sse.ts';
import {
  eventually,
  git,
  restData,
  startTeam,
  startTeamHub,
  type Team,
  type TeamHub,
} from '../../support/team.ts';

interface Reservation {
  id: string;
  holder: string;
  holder_label: string;
  machine: string;
  paths: string[];
}
interface ReserveResult {
  granted: boolean;
  reservation?: Reservation;
  conflicts?: { path: string; holder: string; holder_label: string; machine: string; reason: string }[];
  message: string;
}
interface HookAnswer {
  systemMessage?: string;
  hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
}

const call = restData;

async function hook(h: TeamHub, session: string, name: string, file?: string): Promise<HookAnswer> {
  const repo = h.config.repo;
  const payload = fixture('claude-code', name, repo, {
    session_id: session,
    ...(file ? { tool_input: { file_path: `${repo}/${file}`, old_string: 'a', new_string: 'b' } } : {}),
  });
  const res = await fetch(`${h.url}/api/hooks/events?client=claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as HookAnswer;
}

const reserve = (h: TeamHub, agent_session: string, paths: string[], reason = 'work') =>
  call<ReserveResult>(h, 'POST', '/api/files/reservations', { agent_session, paths, reason });
const live = async (h: TeamHub, query = '') =>
  (await call<{ entries: Reservation[] }>(h, 'GET', `/api/files/reservations${query}`)).entries;

describe('file reservations across machines', () => {
  let team: Team;
  let a: TeamHub;
  let b: TeamHub;
  let mcp: Client;

  before(async () => {
    team = await startTeam(2, 1);
    [a, b] = team.hubs as [TeamHub, TeamHub];
    for (const [h, s] of [
      [a, 'alpha'],
      [a, 'alpha2'],
      [b, 'beta'],
      [b, 'beta2'],
    ] as const)
      await hook(h, s, 'session-start');
    mcp = await connectClient(a.url);
  });
  after(async () => {
    await mcp?.close();
    await team.close();
  });

  test("a reservation made on A refuses B's agent and warns B's edit hook, naming A's agent and machine-a", async () => {
    const sse = await openSse(`${b.url}/api/stream/events`);
    try {
      const result = await mcp.callTool({
        name: 'cos_files_reserve',
        arguments: { agent_session: 'alpha', paths: ['src/core/'], reason: 'core rewrite' },
      });
      const env = result.structuredContent as { ok: boolean; data: ReserveResult };
      assert.equal(env.ok, true);
      assert.equal(env.data.granted, true);
      const id = env.data.reservation!.id;
      const streamed = await sse.waitFor((e) => e.event === 'reservation-updated', 2000);
      const d = streamed.data as { change: string; machine: string; reservation: Reservation };
      assert.deepEqual([d.change, d.machine, d.reservation.id], ['granted', 'machine-a', id]);
      assert.equal(
        d.reservation.holder_label,
        'claude-code alpha on machine-a',
        "B names A's agent with its machine",
      );

      const onB = await eventually(
        async () => (await live(b)).find((r) => r.id === id),
        2000,
        'A’s reservation on B',
      );
      assert.equal(onB.machine, 'machine-a');

      const refused = await reserve(b, 'beta', ['src/core/index.ts'], 'index tweak');
      assert.equal(refused.granted, false);
      assert.deepEqual(
        refused.conflicts?.map((c) => [c.path, c.holder, c.holder_label, c.machine, c.reason]),
        [['src/core/index.ts', 'alpha', 'claude-code alpha on machine-a', 'machine-a', 'core rewrite']],
      );

      const warned = await hook(b, 'beta', 'pre-tool-use-edit', 'src/core/index.ts');
      assert.match(
        String(warned.systemMessage),
        /src\/core\/index\.ts \(src\/core\/\) is reserved by claude-code alpha on machine-a for "core rewrite"/,
      );
      assert.match(String(warned.systemMessage), /cos_message_send to "alpha"/);
      await call(b, 'PATCH', '/api/settings/hooks', { conflicts: 'block' });
      const blocked = await hook(b, 'beta', 'pre-tool-use-edit', 'src/core/index.ts');
      assert.equal(blocked.hookSpecificOutput?.permissionDecision, 'deny');
      await call(b, 'PATCH', '/api/settings/hooks', { conflicts: 'warn' });
      assert.deepEqual(
        await hook(a, 'alpha', 'pre-tool-use-edit', 'src/core/index.ts'),
        {},
        'never about itself',
      );
    } finally {
      sse.close();
    }
  });

  test('overlapping exclusive reservations asked of both hubs at once are granted exactly once, every time', async () => {
    for (let round = 0; round < 12; round++) {
      const [x, y] = await Promise.all([
        reserve(a, 'alpha2', [`race/${round}/`], 'from A'),
        reserve(b, 'beta2', [`race/${round}/**/*.ts`], 'from B'),
      ]);
      assert.equal(Number(x.granted) + Number(y.granted), 1, `round ${round}: ${x.message} | ${y.message}`);
      const loser = x.granted ? y : x;
      assert.equal(loser.conflicts?.[0]?.machine, x.granted ? 'machine-a' : 'machine-b');
    }
    const rows = await a.hub.services.team!.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM team_reservations WHERE team = $1 AND paths::text LIKE '%race/%'",
      [a.hub.services.team!.key],
    );
    assert.equal(rows[0]?.n, 12, 'one row per round in PostgreSQL');
  });

  test("a person's release on B frees the files on A; SessionEnd on A ends its agent's reservations everywhere", async () => {
    const held = (await live(b, '?agent=alpha'))[0]!;
    const released = await call<{ released: { id: string; ended: boolean }[] }>(
      b,
      'POST',
      '/api/files/release',
      {
        id: held.id,
      },
    );
    assert.deepEqual(
      released.released.map((r) => [r.id, r.ended]),
      [[held.id, true]],
    );
    await eventually(async () => (await live(a, '?agent=alpha')).length === 0, 2000, 'the release on A');
    assert.deepEqual(
      await hook(b, 'beta', 'pre-tool-use-edit', 'src/core/index.ts'),
      {},
      'free on B at once',
    );

    const again = await reserve(a, 'alpha', ['src/core/'], 'core rewrite, again');
    assert.equal(again.granted, true);
    await eventually(async () => (await live(b, '?agent=alpha')).length === 1, 2000, 'the new one on B');
    await hook(a, 'alpha', 'session-end');
    await eventually(async () => (await live(a, '?agent=alpha')).length === 0, 2000, 'the end on A');
    await eventually(async () => (await live(b, '?agent=alpha')).length === 0, 2000, 'the end on B');
    assert.equal((await reserve(b, 'beta', ['src/core/index.ts'])).granted, true, 'B may have them now');
  });

  test("a hub started later loads the team's live reservations", async () => {
    const clone = join(team.repos.root, 'machine-late');
    git(team.repos.root, 'clone', '-q', team.repos.origin, clone);
    const c = await startTeamHub(clone, team.db.url, 'machine-c');
    try {
      const onC = await live(c);
      assert.ok(onC.some((r) => r.holder === 'beta' && r.paths.includes('src/core/index.ts')));
      assert.ok(onC.some((r) => r.holder === 'alpha2' && r.machine === 'machine-a'));
      const warned = await hook(c, 'gamma', 'pre-tool-use-edit', 'src/core/index.ts');
      assert.match(String(warned.systemMessage), /reserved by claude-code beta on machine-b/);
    } finally {
      await c.close();
    }
  });
});
