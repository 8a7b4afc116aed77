// MCP sessions have a cap (COS_MCP_MAX_SESSIONS): a new session beyond it closes the longest idle one,
// and cos_health says how many are open against the limit. Before, 2,000 sessions that were never closed
// grew the hub from 230 to 321 MB and all stayed open until the idle timeout.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../../server/config.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function rpc(
  body: object,
  session?: string,
): Promise<{ status: number; session: string | null; body: string }> {
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: session ? { ...HEADERS, 'mcp-session-id': session } : HEADERS,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, session: res.headers.get('mcp-session-id'), body: await res.text() };
}

async function open(name: string): Promise<string> {
  const init = await rpc({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } },
  });
  assert.equal(init.status, 200, init.body);
  const id = init.session!;
  await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, id);
  return id;
}

const ping = async (session: string) =>
  (await rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }, session)).status;

async function health() {
  const res = await t.app.inject({ method: 'GET', url: '/api/health', headers: { host: '127.0.0.1' } });
  return res.json().data as {
    status: string;
    mcp_sessions: { open: number; limit: number; evicted_over_limit: number; evicted_idle: number };
    problems: string[];
  };
}

before(async () => {
  t = await startTestHub({
    withoutServices: true,
    listen: true,
    logger: pino({ level: 'silent' }),
    env: { COS_MCP_MAX_SESSIONS: '3', COS_RATE_LIMIT_RPS: '0' },
  });
});
after(() => t.close());

describe('the MCP session cap', () => {
  test('the limit defaults to 256 and is configurable', () => {
    assert.equal(loadConfig({}).mcpMaxSessions, 256);
    assert.equal(loadConfig({ COS_MCP_MAX_SESSIONS: '10' }).mcpMaxSessions, 10);
    assert.equal(t.config.mcpMaxSessions, 3);
  });

  test('a session beyond the cap closes the longest idle one, never the active ones', async () => {
    const a = await open('a');
    const b = await open('b');
    const c = await open('c');
    assert.equal((await health()).mcp_sessions.open, 3);
    // a is used again, so b is now the longest idle.
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await ping(a), 200);
    const d = await open('d');
    assert.equal(t.app.mcpSessions.size, 3);
    assert.equal(await ping(b), 404, 'b, the longest idle, was closed');
    for (const s of [a, c, d]) assert.equal(await ping(s), 200);
    // Now c is the longest idle (a, c, d were pinged in that order).
    const e = await open('e');
    assert.equal(await ping(a), 404, 'a was pinged before c and d: the longest idle');
    assert.equal(await ping(c), 200);
    assert.equal(await ping(e), 200);
  });

  test('cos_health says how many are open against the limit, and what to do at it', async () => {
    const h = await health();
    assert.deepEqual(h.mcp_sessions, { open: 3, limit: 3, evicted_over_limit: 2, evicted_idle: 0 });
    assert.equal(h.status, 'degraded');
    assert.ok(
      h.problems.some((p) => /COS_MCP_MAX_SESSIONS/.test(p) && /DELETE \/mcp/.test(p)),
      h.problems.join('\n'),
    );
  });

  test('many never-closed sessions keep the table at the cap', async () => {
    for (let i = 0; i < 60; i++) await open(`leak-${i}`);
    assert.equal(t.app.mcpSessions.size, 3);
    const h = await health();
    assert.equal(h.mcp_sessions.open, 3);
    assert.equal(h.mcp_sessions.evicted_over_limit, 62);
  });

  test('a session ended by its client frees its place: cos_health is ok below the cap', async () => {
    const mine = await open('polite');
    const res = await fetch(`${t.url}/mcp`, {
      method: 'DELETE',
      headers: { accept: HEADERS.accept, 'mcp-session-id': mine, 'mcp-protocol-version': '2025-06-18' },
    });
    assert.equal(res.status, 200);
    const h = await health();
    assert.equal(h.mcp_sessions.open, 2);
    assert.equal(h.problems.length, 0, h.problems.join('\n'));
  });
});
