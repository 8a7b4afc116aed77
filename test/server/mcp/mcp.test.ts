// MCP end to end: the official SDK Client over a real port against the real app.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { catalog } from '../../../server/tools/catalog.ts';
import { budgetSize, TOKEN_BUDGET_CHARS } from '../../../shared/envelope/index.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';
import { abortsSeen, testTools } from '../../support/tools.ts';

let t: TestHub;
let client: Client;
before(async () => {
  t = await startTestHub({ tools: [...catalog, ...testTools], withoutServices: true, listen: true });
  client = await connectClient(t.url);
});
after(async () => {
  await client.close();
  await t.close();
});

type Env = {
  ok: boolean;
  data?: Record<string, unknown> & { meta?: Record<string, unknown> };
  error?: { category: string; retryable: boolean; message: string };
};

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const env = result.structuredContent as Env;
  const first = (result.content as { type: string; text: string }[])[0];
  assert.equal(first?.type, 'text');
  assert.deepEqual(JSON.parse(first!.text), env, 'content[0].text is the same JSON as structuredContent');
  assert.equal(result.isError, !env.ok, 'isError is set exactly when ok is false');
  return env;
}

describe('tools/list', () => {
  test('lists each enabled tool with title, description, input and output schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const echo = tools.find((x) => x.name === 'cos_test_echo');
    assert.ok(echo);
    assert.equal(echo.title, 'Echo');
    assert.match(echo.description ?? '', /Answers/);
    assert.equal(echo.inputSchema.type, 'object');
    assert.deepEqual(echo.inputSchema.required, ['text']);
    assert.ok(echo.outputSchema, 'an output schema');
    assert.equal(echo.annotations?.readOnlyHint, true);
    assert.ok(tools.some((x) => x.name === 'cos_health'));
  });

  test('the output schema describes the success data and leaves the error branch to isError', async () => {
    const { tools } = await client.listTools();
    const schema = tools.find((x) => x.name === 'cos_test_echo')?.outputSchema;
    // `meta`, which every answer has, is said once in the server's instructions, not in each schema.
    assert.deepEqual(schema, {
      type: 'object',
      properties: { data: { required: ['text', 'tags'] } },
    });
    assert.doesNotMatch(JSON.stringify(tools), /"\$id"/, 'no $id: clients compile each schema on its own');
  });
});

describe('tools/call', () => {
  test('a successful call answers the envelope as structuredContent and as text', async () => {
    const env = await call('cos_test_echo', { text: 'hi', times: 2 });
    assert.equal(env.ok, true);
    assert.equal(env.data?.text, 'hihi');
    assert.equal(env.data?.meta?.layer, 'health');
    assert.equal(env.data?.meta?.truncated, false);
  });

  test('bad arguments answer a validation envelope, not a JSON-RPC error', async () => {
    const env = await call('cos_test_echo', { text: 5 });
    assert.equal(env.ok, false);
    assert.equal(env.error?.category, 'validation');
    assert.match(env.error?.message ?? '', /text/);
  });

  test('arguments that are not an object answer a validation envelope, not a JSON-RPC error', async () => {
    for (const args of [[1, 2], 'text', 42, null]) {
      const result = await client.request(
        { method: 'tools/call', params: { name: 'cos_test_echo', arguments: args as never } },
        CallToolResultSchema,
      );
      const env = result.structuredContent as Env;
      assert.equal(result.isError, true);
      assert.equal(env.error?.category, 'validation', JSON.stringify(args));
      assert.match(env.error?.message ?? '', /object of named arguments/);
    }
  });

  test('an unknown tool answers not_found', async () => {
    const env = await call('cos_nope', {});
    assert.equal(env.error?.category, 'not_found');
    assert.match(env.error?.message ?? '', /tools\/list/);
  });

  test('a large answer is trimmed to the 32 KB agent budget with its markers', async () => {
    const result = await client.callTool({ name: 'cos_test_big', arguments: { count: 2000 } });
    const text = (result.content as { text: string }[])[0]!.text;
    assert.ok(budgetSize(text) <= TOKEN_BUDGET_CHARS, `fits the budget (${text.length} chars)`);
    const env = result.structuredContent as Env;
    const meta = env.data?.meta ?? {};
    assert.equal(meta.truncated, true);
    assert.equal(meta.truncated_results_from, 2000);
    const kept = (env.data?.results as unknown[] | undefined)?.length ?? 0;
    assert.equal(meta.truncated_results_to, kept);
    assert.ok(kept > 0 && kept < 2000);
    assert.equal(env.data?.count, kept, 'count follows the cut list');
  });

  test('progress notifications reach a client that asked for them', async () => {
    const seen: number[] = [];
    const result = await client.callTool({ name: 'cos_test_progress', arguments: { steps: 4 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    assert.equal((result.structuredContent as Env).ok, true);
    assert.deepEqual(seen, [1, 2, 3, 4]);
  });

  test('a call the client cancels has its signal aborted, and other calls go on', async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'cos_test_wait', arguments: { ms: 10_000 } }, undefined, {
      signal: controller.signal,
    });
    await new Promise((r) => setTimeout(r, 50));
    const before = abortsSeen.length;
    controller.abort('the agent moved on');
    await assert.rejects(pending);
    for (let i = 0; i < 100 && abortsSeen.length === before; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(abortsSeen.length, before + 1, 'the tool saw its signal abort');
    assert.match(String(abortsSeen.at(-1)), /the agent moved on/);
    assert.equal((await call('cos_test_wait', { ms: 1 })).ok, true);
  });

  test('a tools/call without a tool name is a JSON-RPC invalid-params error', async () => {
    for (const params of [{}, { name: 7 }, { name: 'cos_test_echo', _meta: { progressToken: {} } }]) {
      await assert.rejects(
        client.request({ method: 'tools/call', params: params as never }, CallToolResultSchema),
        (err: { code?: number }) => err.code === -32602,
        JSON.stringify(params),
      );
    }
  });

  test('ping and logging/setLevel answer', async () => {
    await client.ping();
    await client.setLoggingLevel('warning');
  });
});

describe('modules', () => {
  test('a disabled module leaves tools/list, its tools answer module_disabled, and clients are told', async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    t.hub.modules.set('memory', false);
    try {
      const { tools } = await client.listTools();
      assert.equal(
        tools.some((x) => x.name === 'cos_test_memory_probe'),
        false,
      );
      const env = await call('cos_test_memory_probe', {});
      assert.equal(env.error?.category, 'module_disabled');
      assert.equal(env.error?.retryable, false);
      assert.match(env.error?.message ?? '', /cos module enable memory/);
      for (let i = 0; i < 50 && changed === 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(changed >= 1, 'notifications/tools/list_changed was sent');
    } finally {
      t.hub.modules.set('memory', true);
    }
    const { tools } = await client.listTools();
    assert.ok(tools.some((x) => x.name === 'cos_test_memory_probe'));
  });
});

describe('sessions', () => {
  test('DELETE ends a session; its id is then unknown (404)', async () => {
    const other = await connectClient(t.url);
    const transport = other.transport as unknown as { sessionId?: string; terminateSession(): Promise<void> };
    const id = transport.sessionId;
    assert.ok(id);
    assert.ok(t.app.mcpSessions.get(id));
    await transport.terminateSession();
    assert.equal(t.app.mcpSessions.get(id), undefined);
    const res = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    assert.equal(res.status, 404);
    await other.close();
  });

  test('a batch is answered in the order it was asked, tools/call and protocol requests alike', async () => {
    const id = (client.transport as unknown as { sessionId: string }).sessionId;
    const call = (n: number, text: string) => ({
      jsonrpc: '2.0',
      id: n,
      method: 'tools/call',
      params: { name: 'cos_test_echo', arguments: { text } },
    });
    const res = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify([
        call(31, 'first'),
        { jsonrpc: '2.0', id: 32, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } },
        call(33, 'third'),
      ]),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String((await res.clone().arrayBuffer()).byteLength));
    const answers = (await res.json()) as { id: number; result: { structuredContent?: Env } }[];
    assert.deepEqual(
      answers.map((a) => a.id),
      [31, 32, 33],
    );
    assert.equal(answers[0]!.result.structuredContent?.data?.text, 'first');
    assert.deepEqual(answers[1]!.result, {});
    assert.equal(answers[2]!.result.structuredContent?.data?.text, 'third');
  });

  test('a request without a session that is not initialize is 400', async () => {
    const res = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 400);
  });

  test('idle sessions are evicted', async () => {
    const other = await connectClient(t.url);
    const id = (other.transport as unknown as { sessionId: string }).sessionId;
    const session = t.app.mcpSessions.get(id)!;
    session.lastActivityAt -= t.config.mcpSessionIdleMs + 1;
    assert.ok(t.app.mcpSessions.evictIdle() >= 1);
    assert.equal(t.app.mcpSessions.get(id), undefined);
    await other.close();
  });
});
