// The message tools over MCP, with the official SDK client on a real port: send, inbox and ack as two
// agents use them (one with hooks, one MCP client naming its hook session), the page's "human" refused
// to an agent, an inbox of large bodies paged to the agent budget with a cursor that loses nothing; and
// the tools' faces (MCP lists send, inbox and ack; the threads list is the page's, REST only).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { budgetSize, TOKEN_BUDGET_CHARS } from '../../../shared/envelope/index.ts';
import { fixture } from '../../support/hooks.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
let alice: Client;
let bob: Client;
const host = { host: '127.0.0.1' };

type Env<T> = { ok: true; data: T } | { ok: false; error: { category: string; message: string } };
interface Sent {
  id: string;
  from: string;
  recipients: { agent: string }[];
}
interface Inbox {
  agent: string;
  messages: { id: string; body: string; delivered_at: string | null; acked_at: string | null }[];
  unread: number;
  next_cursor: string | null;
}

async function call<T>(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0]!.text;
  assert.ok(budgetSize(text) <= TOKEN_BUDGET_CHARS, `${name} fits the agent budget`);
  return result.structuredContent as Env<T>;
}
async function ok<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const env = await call<T>(client, name, args);
  assert.ok(env.ok, JSON.stringify(env));
  return env.data;
}

const hook = (session: string, name: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/hooks/events?client=claude-code',
    headers: host,
    payload: fixture('claude-code', name, t.dir, { session_id: session }),
  });

before(async () => {
  t = await startTestHub({ listen: true, env: { COS_RATE_LIMIT_RPS: '0' } });
  alice = await connectClient(t.url);
  bob = await connectClient(t.url);
  for (const s of ['hook-alice', 'hook-bob']) assert.equal((await hook(s, 'session-start')).statusCode, 200);
});
after(async () => {
  await alice.close();
  await bob.close();
  await t.close();
});

describe('over MCP', () => {
  test('tools/list has send, inbox and ack with their schemas; the page’s threads list is not there', async () => {
    const { tools } = await alice.listTools();
    for (const name of ['cos_message_send', 'cos_inbox', 'cos_message_ack'])
      assert.ok(
        tools.some((x) => x.name === name && x.outputSchema),
        name,
      );
    assert.ok(!tools.some((x) => x.name === 'cos_message_threads'));
    assert.deepEqual(tools.find((x) => x.name === 'cos_message_send')?.inputSchema.required, ['to', 'body']);
  });

  test('send, inbox and ack: a message from an MCP session to a hook agent, read and acked by an MCP client naming it', async () => {
    // Alice's MCP session names its hook session once; from then on it is that agent.
    const sent = await ok<Sent>(alice, 'cos_message_send', {
      agent_session: 'hook-alice',
      to: 'hook-bob',
      subject: 'review',
      body: 'please review src/x.ts',
    });
    assert.equal(sent.from, 'hook-alice');
    const reply = await ok<Sent>(alice, 'cos_message_send', { to: 'hook-bob', body: 'and src/y.ts' });
    assert.equal(reply.from, 'hook-alice', 'the linked MCP session speaks as its hook agent');

    const box = await ok<Inbox>(bob, 'cos_inbox', { agent_session: 'hook-bob', unread_only: true });
    assert.equal(box.agent, 'hook-bob');
    assert.deepEqual(
      box.messages.map((m) => m.body),
      ['and src/y.ts', 'please review src/x.ts'],
      'newest first',
    );
    assert.equal(box.unread, 2);
    assert.ok(
      box.messages.every((m) => m.delivered_at === null),
      'not in a context yet',
    );

    const acked = await ok<{ acked: { id: string }[]; unread: number }>(bob, 'cos_message_ack', {
      agent_session: 'hook-bob',
      ids: [sent.id],
    });
    assert.deepEqual(
      acked.acked.map((a) => a.id),
      [sent.id],
    );
    assert.equal(acked.unread, 1);
    // Bob's MCP session is linked to hook-bob now: it reads the same inbox without naming it.
    const again = await ok<Inbox>(bob, 'cos_inbox', { unread_only: true });
    assert.equal(again.agent, 'hook-bob');
    assert.deepEqual(
      again.messages.map((m) => m.id),
      [reply.id],
    );
    const notMine = await call(alice, 'cos_message_ack', { agent_session: 'hook-alice', ids: [reply.id] });
    assert.equal(notMine.ok, false);
    if (!notMine.ok) assert.equal(notMine.error.category, 'not_found');
  });

  test('an agent cannot speak for the page: agent_session "human" over MCP is validation', async () => {
    for (const [name, args] of [
      ['cos_inbox', { agent_session: 'human' }],
      ['cos_message_ack', { agent_session: 'human', ids: ['m-x-00000000'] }],
      ['cos_message_send', { agent_session: 'human', to: 'hook-bob', body: 'x' }],
    ] as const) {
      const env = await call(alice, name, args);
      assert.equal(env.ok, false, name);
      if (!env.ok) {
        assert.equal(env.error.category, 'validation');
        assert.match(env.error.message, /only the page speaks for them/);
      }
    }
  });

  test('an inbox of 8 KB bodies is paged to the agent budget; the cursor walks every message once', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 12; i++)
      ids.add(
        (
          await ok<Sent>(bob, 'cos_message_send', {
            agent_session: 'hook-bob',
            to: 'hook-alice',
            body: `${i} ${'z'.repeat(8000)}`,
          })
        ).id,
      );
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page: Inbox = await ok<Inbox>(alice, 'cos_inbox', {
        agent_session: 'hook-alice',
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      pages++;
      seen.push(...page.messages.map((m) => m.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor && pages < 20);
    assert.ok(pages >= 4, `${pages} pages: about three 8 KB bodies fit one answer`);
    assert.deepEqual(new Set(seen), ids);
    assert.equal(seen.length, ids.size);
    const bad = await call(alice, 'cos_inbox', { agent_session: 'hook-alice', cursor: 'nonsense' });
    assert.equal(bad.ok, false);
  });
});
