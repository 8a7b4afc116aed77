// Presence lifecycle with a clock the test moves: active (≤ 30 s), present (≤ 5 min), idle, ended.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { catalog } from '../../../server/tools/catalog.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';
import { testTools } from '../../support/tools.ts';

let clock = Date.parse('2026-11-30T12:00:00Z');
let t: TestHub;
before(async () => {
  t = await startTestHub({
    tools: [...catalog, ...testTools],
    withoutServices: true,
    listen: true,
    now: () => clock,
  });
});
after(() => t.close());

const host = { host: '127.0.0.1' };
const sessions = async () =>
  (await t.app.inject({ method: 'GET', url: '/api/sessions/active', headers: host })).json().data
    .sessions as {
    id: string;
    lifecycle: string;
    last_tool: string | null;
    client_name: string | null;
    agent_session: string | null;
    calls: number;
  }[];

test('a session goes active → present → idle → ended as time passes, and presence events follow', async () => {
  const updates: unknown[] = [];
  const off = t.hub.events.subscribe((e) => {
    if (e.type === 'presence-updated') updates.push(e.data);
  });
  const client = await connectClient(t.url);
  const id = (client.transport as unknown as { sessionId: string }).sessionId;
  await client.callTool({ name: 'cos_test_sleep', arguments: { ms: 0, agent_session: 'agent-42' } });

  let mine = (await sessions()).find((s) => s.id === id);
  assert.equal(mine?.lifecycle, 'active');
  assert.equal(mine?.last_tool, 'cos_test_sleep');
  assert.equal(mine?.agent_session, 'agent-42');
  assert.equal(mine?.client_name, 'cos-hub-test');

  clock += 31_000;
  t.hub.sessions.checkLifecycles();
  mine = (await sessions()).find((s) => s.id === id);
  assert.equal(mine?.lifecycle, 'present');

  clock += 5 * 60_000;
  t.hub.sessions.checkLifecycles();
  mine = (await sessions()).find((s) => s.id === id);
  assert.equal(mine?.lifecycle, 'idle');

  const agents = await client.callTool({ name: 'cos_presence_query', arguments: {} });
  const data = (
    agents.structuredContent as {
      data: { entries: { id: string; lifecycle: string }[]; counts: Record<string, number> };
    }
  ).data;
  // The presence query itself is a request: the session is active again.
  assert.equal(data.entries.find((e) => e.id === id)?.lifecycle, 'active');

  // DELETE /mcp ends the session.
  await (client.transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
  await client.close();
  mine = (await sessions()).find((s) => s.id === id);
  assert.equal(mine?.lifecycle, 'ended');
  off();
  assert.ok(updates.length >= 4, `presence-updated events: ${updates.length}`);
});

test('/api/presence/now summarises the open sessions', async () => {
  const client = await connectClient(t.url);
  await client.callTool({ name: 'cos_test_echo', arguments: { text: 'x' } });
  const body = (await t.app.inject({ method: 'GET', url: '/api/presence/now', headers: host })).json();
  assert.ok(body.data.counts.active >= 1);
  assert.ok(body.data.agents.some((a: { activity: string }) => a.activity === 'called cos_test_echo'));
  await client.close();
});

test('REST-only routes stay off tools/list and cannot be called over MCP', async () => {
  const client = await connectClient(t.url);
  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name);
  assert.ok(names.includes('cos_presence_query'));
  assert.ok(!names.includes('cos_sessions_active'));
  const res = await client.callTool({ name: 'cos_sessions_active', arguments: {} });
  assert.equal((res.structuredContent as { error: { category: string } }).error.category, 'not_found');
  await client.close();
});
