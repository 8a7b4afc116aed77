// Every malformed JSON-RPC request gets the error it deserves, over a real port. Before, a ping whose id
// was null, an object, a float or true, or whose params were not an object, got no answer at all (the
// client waited until it gave up), logging/setLevel with an unknown level answered -32603 with a dumped
// zod error, and a body that was not JSON answered the REST envelope instead of -32700.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
let session = '';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

interface Answer {
  status: number;
  body: unknown;
}

/** POSTs to /mcp and gives up after 5 s: a request the hub leaves unanswered fails the test. */
async function post(body: unknown, withSession = true): Promise<Answer> {
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: withSession ? { ...HEADERS, 'mcp-session-id': session } : HEADERS,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

interface RpcError {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string };
}

before(async () => {
  t = await startTestHub({ withoutServices: true, listen: true, logger: pino({ level: 'silent' }) });
  const init = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'malformed', version: '1' },
      },
    }),
  });
  session = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  assert.ok(session);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
});
after(() => t.close());

const ping = (extra: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'ping', ...extra });

describe('malformed JSON-RPC requests', () => {
  test('an id that is not a string or an integer: -32600 with id null, for ping and tools/call alike', async () => {
    for (const id of [null, {}, { a: 1 }, [1], 1.5, true, false, 2 ** 60]) {
      for (const method of ['ping', 'tools/call']) {
        const { status, body } = await post({ jsonrpc: '2.0', id, method, params: { name: 'cos_health' } });
        const answer = body as RpcError;
        assert.equal(status, 400, `${method} id ${JSON.stringify(id)}`);
        assert.equal(answer.jsonrpc, '2.0');
        assert.equal(answer.id, null);
        assert.equal(answer.error.code, -32600, `${method} id ${JSON.stringify(id)}`);
        assert.match(answer.error.message, /"id" must be a string or an integer/);
      }
    }
  });

  test('params that are not an object, or a bad _meta: -32602 with the request id', async () => {
    for (const [i, params] of [
      ['x'],
      [[1]],
      [5],
      [null],
      [true],
      [{ _meta: 5 }],
      [{ _meta: { progressToken: {} } }],
    ].entries()) {
      const { body } = await post(ping({ id: `p${i}`, params: params[0] }));
      const answer = body as RpcError;
      assert.equal(answer.id, `p${i}`, JSON.stringify(params));
      assert.equal(answer.error.code, -32602, JSON.stringify(params));
    }
  });

  test('logging/setLevel with an unknown level is -32602 naming the field, on one line', async () => {
    const { status, body } = await post({
      jsonrpc: '2.0',
      id: 'lvl',
      method: 'logging/setLevel',
      params: { level: 'loud' },
    });
    const answer = body as RpcError;
    assert.equal(status, 200);
    assert.equal(answer.id, 'lvl');
    assert.equal(answer.error.code, -32602);
    assert.match(answer.error.message, /params\.level/);
    assert.doesNotMatch(answer.error.message, /\n/);
    const ok = await post({
      jsonrpc: '2.0',
      id: 'ok',
      method: 'logging/setLevel',
      params: { level: 'debug' },
    });
    assert.deepEqual((ok.body as { result: unknown }).result, {});
  });

  test('bad params of every method the hub serves are -32602, not -32603', async () => {
    for (const [method, params] of [
      ['tools/list', { cursor: 5 }],
      ['ping', { _meta: [] }],
      ['logging/setLevel', {}],
      ['initialize', { protocolVersion: 5 }],
    ] as const) {
      const { body } = await post({ jsonrpc: '2.0', id: method, method, params });
      assert.equal((body as RpcError).error.code, -32602, method);
    }
    // Without a session, an initialize with bad params says what is wrong, not "send initialize first".
    const { body } = await post({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: {} }, false);
    assert.equal((body as RpcError).error.code, -32602);
    assert.match((body as RpcError).error.message, /protocolVersion/);
  });

  test('what is not a JSON-RPC request at all: -32600; a body that is not JSON: -32700', async () => {
    for (const message of [
      5,
      'text',
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, method: 5 },
      { jsonrpc: '2.0', id: 1, method: '' },
      { jsonrpc: '2.0', id: 1, method: 'ping', extra: true },
      { jsonrpc: '2.0', id: 1, method: 'ping', result: {} },
    ]) {
      const { body } = await post(typeof message === 'string' ? JSON.stringify(message) : message);
      assert.equal((body as RpcError).error.code, -32600, JSON.stringify(message));
    }
    for (const text of ['{bad json', '', '{"jsonrpc":"2.0",']) {
      const { status, body } = await post(text);
      assert.equal(status, 400, text);
      assert.deepEqual((body as RpcError).error.code, -32700, text);
      assert.equal((body as RpcError).id, null);
    }
  });

  test('a batch answers its good requests and refuses its bad ones, each with its own error', async () => {
    const { status, body } = await post([
      ping({ id: 1 }),
      ping({ id: null }),
      ping({ id: 2, params: 'x' }),
      { jsonrpc: '2.0', id: 3, method: 'no/such/method' },
      { jsonrpc: '2.0', method: 'notifications/whatever' },
    ]);
    assert.equal(status, 200);
    const answers = body as (RpcError & { result?: unknown })[];
    assert.equal(answers.length, 4);
    const byId = (id: unknown) => answers.find((a) => a.id === id);
    assert.deepEqual(byId(1)?.result, {});
    assert.equal(byId(null)?.error.code, -32600);
    assert.equal(byId(2)?.error.code, -32602);
    assert.equal(byId(3)?.error.code, -32601);
  });

  test('the session still works after all of it', async () => {
    const { body } = await post(ping({ id: 'last' }));
    assert.deepEqual(body, { jsonrpc: '2.0', id: 'last', result: {} });
  });
});
