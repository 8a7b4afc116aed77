import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ADDRESS_FACTOR, RateLimiter } from '../../../server/http/rate-limit.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

describe('RateLimiter', () => {
  test('allows the burst, then the sustained rate, and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    assert.deepEqual([limiter.take('a'), limiter.take('a'), limiter.take('a')], [0, 0, 0]);
    assert.equal(limiter.take('a'), 500);
    assert.equal(limiter.take('b'), 0, 'clients have their own buckets');
    now += 500;
    assert.equal(limiter.take('a'), 0);
    assert.ok(limiter.take('a') > 0);
  });

  test('0 per second turns limiting off', () => {
    const limiter = new RateLimiter({ perSecond: 0, burst: 0 });
    for (let i = 0; i < 100; i++) assert.equal(limiter.take('a'), 0);
  });
});

/** One client: every request on one kept-alive connection, as a script's HTTP client sends them. */
function client(url: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = request(`${url}${path}`, { agent, method, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

describe('over HTTP', () => {
  let t: TestHub;
  before(async () => {
    t = await startTestHub({
      withoutServices: true,
      listen: true,
      env: { COS_RATE_LIMIT_RPS: '1', COS_RATE_LIMIT_BURST: '3' },
    });
  });
  after(() => t.close());

  test('a burst beyond the limit answers 429 transient with Retry-After', async () => {
    const script = client(t.url);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await script.send('/api/health'));
    script.close();
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 429, 429],
    );
    const refused = answers[3]!;
    assert.equal(refused.headers['retry-after'], '1');
    const { error } = JSON.parse(refused.body);
    assert.equal(error.category, 'transient');
    assert.equal(error.retryable, true);
  });

  test('a made-up Mcp-Session-Id does not dodge the limit (each request a new one)', async () => {
    await new Promise((r) => setTimeout(r, 3_100));
    const script = client(t.url);
    const codes = [];
    for (let i = 0; i < 6; i++)
      codes.push((await script.send('/api/health', { 'mcp-session-id': randomUUID() })).status);
    script.close();
    assert.deepEqual(codes, [200, 200, 200, 429, 429, 429]);
  });

  test('a throttled script leaves the SPA (another client) its own bucket', async () => {
    await new Promise((r) => setTimeout(r, 3_100));
    const script = client(t.url);
    for (let i = 0; i < 3; i++) await script.send('/api/health');
    assert.equal((await script.send('/api/health')).status, 429, 'the script is throttled');
    const spa = client(t.url);
    assert.equal((await spa.send('/api/health')).status, 200, 'the SPA is not');
    assert.equal((await spa.send('/api/health')).status, 200);
    script.close();
    spa.close();
  });

  test('opening a connection per request meets the ceiling of one address', async () => {
    await new Promise((r) => setTimeout(r, 3_100));
    const started = Date.now();
    const codes = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const once = client(t.url);
        const { status } = await once.send('/api/health');
        once.close();
        return status;
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const served = codes.filter((c) => c === 200).length;
    // No connection is refused by its own bucket (one request each); the address's ceiling, four
    // clients' burst plus four clients' rate for the time it took, refuses the rest.
    assert.ok(served >= 3 * ADDRESS_FACTOR, `${served} served`);
    assert.ok(
      served <= 3 * ADDRESS_FACTOR + Math.ceil(seconds * ADDRESS_FACTOR),
      `${served} in ${seconds} s`,
    );
    assert.equal(codes.filter((c) => c === 429).length, 40 - served);
  });

  test('a real MCP session is a client of its own, whatever the script on its address does', async () => {
    await new Promise((r) => setTimeout(r, 3_100));
    const agent = client(t.url);
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await agent.send(
      '/mcp',
      headers,
      'POST',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'r', version: '1' } },
      }),
    );
    const session = String(init.headers['mcp-session-id']);
    const script = client(t.url);
    for (let i = 0; i < 4; i++) await script.send('/api/health');
    assert.equal((await script.send('/api/health')).status, 429);
    const ping = (id: number) =>
      agent.send(
        '/mcp',
        { ...headers, 'mcp-session-id': session },
        'POST',
        JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }),
      );
    assert.equal((await ping(2)).status, 200);
    assert.equal((await ping(3)).status, 200);
    script.close();
    agent.close();
  });
});
