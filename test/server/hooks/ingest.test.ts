// The ingest route on its own: what it refuses (bad, oversized and hostile payloads; wrong Host, Origin
// or token, through the shared protection), what it keeps (unknown events as such; prompt text only when
// the project asks), what it streams (resumably), and presence as the hub reports it: hook sessions with
// a clock the test moves, MCP sessions linked to them, one-shot MCP clients that do not pile up.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { fixture } from '../../support/hooks.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';
import { openSse } from '../../support/sse.ts';

const host = { host: '127.0.0.1', 'content-type': 'application/json' };
let clock = Date.parse('2026-11-30T12:00:00Z');
let t: TestHub;

const post = (body: unknown, query = '?client=claude-code', headers: Record<string, string> = host) =>
  t.app.inject({
    method: 'POST',
    url: `/api/hooks/events${query}`,
    headers,
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

before(async () => {
  t = await startTestHub({ listen: true, now: () => clock, env: { COS_RATE_LIMIT_RPS: '0' } });
});
after(() => t.close());

describe('what the ingest route refuses', () => {
  test('a body that is not a hook payload answers validation, saying what is missing', async () => {
    const cases: [unknown, RegExp][] = [
      [[1, 2], /JSON object/],
      [{ session_id: 'a' }, /hook_event_name/],
      [{ hook_event_name: 'Stop' }, /session_id/],
      [{ hook_event_name: 'Stop', session_id: '../../etc/passwd' }, /session_id/],
      [{ hook_event_name: 'PreToolUse', session_id: 's1' }, /tool_name/],
      [{ hook_event_name: 'Stop', session_id: 's1', cwd: 42 }, /cwd must be a string/],
      [{ hook_event_name: 'x'.repeat(100), session_id: 's1' }, /hook_event_name/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().error.category, 'validation');
      assert.match(res.json().error.message, message);
    }
    assert.equal((await post('{not json')).statusCode, 400);
    assert.equal((await post(fixture('claude-code', 'stop', t.dir), '?client=cursor')).statusCode, 400);
  });

  test('oversized and hostile payloads answer validation and leave the hub answering', async () => {
    const big = await post({
      ...fixture('claude-code', 'stop', t.dir),
      last_assistant_message: 'x'.repeat(3 * 1024 * 1024),
    });
    assert.equal(big.statusCode, 413);
    assert.equal(big.json().error.category, 'validation');
    const proto = await post('{"hook_event_name":"Stop","session_id":"s1","__proto__":{"polluted":true}}');
    assert.equal(proto.statusCode, 400);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    // Deep nesting and wide objects are cut to a bounded detail, not walked whole.
    // (Built as text: JSON.stringify itself cannot go 50,000 levels deep.)
    const deep = `${'{"d":'.repeat(50_000)}"leaf"${'}'.repeat(50_000)}`;
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'v'])));
    for (const input of [deep, wide]) {
      const res = await post(
        `{"hook_event_name":"PreToolUse","session_id":"hostile-1","tool_name":"mcp__x__y","tool_input":${input}}`,
      );
      assert.equal(res.statusCode, 200, res.body);
    }
    const rows = t.hub.services.agents.store.events({ agent: 'hostile-1', limit: 5 });
    for (const r of rows) assert.ok(JSON.stringify(r.detail).length < 20_000, 'detail stays small');
    // A command in a payload is text, never run: nothing happens to this file.
    const res = await post({
      hook_event_name: 'PreToolUse',
      session_id: 'hostile-2',
      tool_name: 'Bash',
      tool_input: { command: `touch ${t.dir}/pwned` },
    });
    assert.equal(res.statusCode, 200);
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(`${t.dir}/pwned`), false);
  });

  test('the shared protection applies: a forged Host or a foreign Origin is refused', async () => {
    const send = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify(fixture('claude-code', 'stop', t.dir));
        const u = new URL(t.url);
        const req = request(
          {
            host: u.hostname,
            port: u.port,
            path: '/api/hooks/events?client=claude-code',
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    assert.equal(await send({}), 200);
    assert.equal(await send({ host: 'evil.example:80' }), 403);
    assert.equal(await send({ origin: 'https://evil.example' }), 403);
  });
});

describe('what it keeps', () => {
  test('an event no client documents is stored as unknown with its payload, a documented one as other', async () => {
    await post({
      hook_event_name: 'MadeUpEvent',
      session_id: 'u-1',
      cwd: t.dir,
      weird: { a: [1, 2, 3] },
      password: 'pw',
    });
    await post(fixture('claude-code', 'worktree-create', t.dir, { session_id: 'u-1' }));
    const [other, unknown] = t.hub.services.agents.store.events({ agent: 'u-1', limit: 2 });
    assert.equal(unknown?.kind, 'unknown');
    assert.equal(unknown?.event, 'MadeUpEvent');
    assert.deepEqual(unknown?.detail.payload, { weird: { a: [1, 2, 3] }, password: '[REDACTED]' });
    assert.equal(other?.kind, 'other');
    assert.equal(other?.event, 'WorktreeCreate');
  });

  test('prompt text is kept, redacted, only when the project turns it on', async () => {
    const prompt = fixture('claude-code', 'user-prompt-submit', t.dir, { session_id: 'p-1' });
    await post(prompt);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { store_prompts: true },
    });
    await post(prompt);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { store_prompts: false },
    });
    const [on, off] = t.hub.services.agents.store.events({ agent: 'p-1', limit: 2 });
    assert.equal(off?.detail.prompt, undefined);
    assert.equal(off?.summary, `prompt (${String(prompt.prompt).length} characters)`);
    assert.match(
      String(on?.detail.prompt),
      /^Fix the failing test in src\/math\.ts; the deploy key is \[REDACTED\]$/,
    );
    assert.equal(on?.detail.prompt_sha256, off?.detail.prompt_sha256);
  });

  test('a settings change is validated and kept in hooks.json', async () => {
    const bad = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { conflicts: 'maybe' },
    });
    assert.equal(bad.statusCode, 400);
    const ok = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { agent_timeout_minutes: 20 },
    });
    assert.equal(ok.json().data.settings.agent_timeout_minutes, 20);
    const { readFileSync } = await import('node:fs');
    assert.equal(
      JSON.parse(readFileSync(`${t.config.stateDir}/hooks.json`, 'utf8')).agent_timeout_minutes,
      20,
    );
  });
});

describe('what it streams', () => {
  test('each event is on /api/stream/events, redacted, and a client that reconnects gets what it missed', async () => {
    const sse = await openSse(`${t.url}/api/stream/events`);
    await post(fixture('claude-code', 'pre-tool-use-bash', t.dir, { session_id: 's-stream' }));
    const first = await sse.waitFor(
      (e) => e.event === 'agent-event' && (e.data as { agent: string }).agent === 's-stream',
    );
    assert.match((first.data as { summary: string }).summary, /DATABASE_PASSWORD=\[REDACTED\]/);
    assert.ok(!JSON.stringify(sse.events).includes('s3cr3t-pw'));
    sse.close();
    await post(fixture('claude-code', 'stop', t.dir, { session_id: 's-stream' }));
    const again = await openSse(`${t.url}/api/stream/events`, { 'last-event-id': String(first.id) });
    const missed = await again.waitFor(
      (e) => e.event === 'agent-event' && (e.data as { kind: string }).kind === 'stop',
    );
    assert.ok((missed.id ?? 0) > (first.id ?? 0));
    again.close();
  });
});

describe('presence that is true', () => {
  const agents = async () =>
    (
      await t.app.inject({ method: 'GET', url: '/api/presence/agents?include_ended=true', headers: host })
    ).json().data as {
      entries: {
        id: string;
        source: string;
        client: string | null;
        lifecycle: string;
        mcp_sessions: string[];
        end_reason: string | null;
      }[];
      counts: { active: number; present: number; idle: number; ended: number };
    };

  test('a hook session is present from its first event, and leaves after silence past the timeout', async () => {
    await post(fixture('codex', 'session-start', t.dir, { session_id: 'quiet-1' }), '?client=codex');
    assert.equal((await agents()).entries.find((a) => a.id === 'quiet-1')?.lifecycle, 'active');
    clock += 6 * 60_000;
    assert.equal((await agents()).entries.find((a) => a.id === 'quiet-1')?.lifecycle, 'idle');
    clock += 20 * 60_000; // past the 20-minute timeout set above
    t.hub.services.agents.registry.sweep();
    const gone = (await agents()).entries.find((a) => a.id === 'quiet-1');
    assert.equal(gone?.lifecycle, 'ended');
    assert.match(String(gone?.end_reason), /silent for 20 min/);
  });

  test('an MCP session that names the hook session as agent_session is shown as one agent', async () => {
    const start = await post(fixture('claude-code', 'session-start', t.dir, { session_id: 'linked-1' }));
    assert.match(start.json().hookSpecificOutput.additionalContext, /agent_session: "linked-1"/);
    const client = await connectClient(t.url);
    await client.callTool({ name: 'cos_task_claim_next', arguments: { agent_session: 'linked-1' } });
    const mcpId = (client.transport as unknown as { sessionId: string }).sessionId;
    const list = await agents();
    const me = list.entries.filter((a) => a.id === 'linked-1' || a.mcp_sessions.includes(mcpId));
    assert.equal(me.length, 1, 'one entry for the hook session and its MCP session');
    assert.equal(me[0]?.source, 'hooks+mcp');
    assert.deepEqual(me[0]?.mcp_sessions, [mcpId]);
    await client.close();
  });

  test('one-shot MCP clients do not pile up as present; a client that never called a tool still has its name', async () => {
    const before = (await agents()).counts;
    for (let i = 0; i < 5; i++) {
      const c = await connectClient(t.url);
      await c.listTools();
      await c.close(); // gone without DELETE: as one-shot scripts leave
    }
    const fresh = await agents();
    const named = fresh.entries.filter((a) => a.source === 'mcp' && a.lifecycle === 'active');
    assert.ok(named.length >= 5);
    for (const a of named) assert.ok(a.client?.startsWith('cos-hub-test'), 'named without a tool call');
    clock += 31_000;
    const after = await agents();
    assert.ok(
      after.counts.present + after.counts.active <= before.present + before.active,
      JSON.stringify(after.counts),
    );
    assert.ok(after.entries.filter((a) => a.end_reason?.startsWith('one-shot')).length >= 5);
    // The summary, the header and the presence tool all count the same list.
    const summary = (await t.app.inject({ method: 'GET', url: '/api/hub/summary', headers: host })).json()
      .data.agents;
    const now = (await t.app.inject({ method: 'GET', url: '/api/presence/now', headers: host })).json().data
      .counts;
    assert.deepEqual(summary, now);
    assert.deepEqual({ ...now, ended: 0 }, { ...after.counts, ended: 0 });
  });
});
