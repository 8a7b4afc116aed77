// Host and Origin forgery go through node:http: fetch() drops a custom Host header.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { catalog } from '../../../server/tools/catalog.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import { testTools } from '../../support/tools.ts';

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function call(
  url: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    if (body) req.end(body);
    else req.end();
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('on loopback without a token', () => {
  let t: TestHub;
  let port: string;
  before(async () => {
    t = await startTestHub({ tools: [...catalog, ...testTools], withoutServices: true, listen: true });
    port = new URL(t.url).port;
  });
  after(() => t.close());

  for (const path of ['/api/health', '/openapi.json', '/', '/docs']) {
    test(`a forged Host is refused on ${path}`, async () => {
      const res = await call(t.url, path, { host: `evil.example.com:${port}` });
      assert.equal(res.status, 403);
      assert.equal(JSON.parse(res.body).error.category, 'permission');
    });
  }

  test('a forged Host is refused on /mcp before a session exists', async () => {
    const res = await call(
      t.url,
      '/mcp',
      { host: 'evil.example.com', origin: 'http://evil.example.com', ...mcpHeaders },
      'POST',
      initialize,
    );
    assert.equal(res.status, 403);
    assert.equal(t.app.mcpSessions.size, 0);
  });

  test('loopback Host names are accepted, with or without the port', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost', `[::1]:${port}`]) {
      const res = await call(t.url, '/api/health', { host });
      assert.equal(res.status, 200, host);
    }
  });

  test('a page from another origin can neither call /mcp nor mutate through /api', async () => {
    const mcp = await call(
      t.url,
      '/mcp',
      { host: `127.0.0.1:${port}`, origin: 'http://evil.example.com', ...mcpHeaders },
      'POST',
      initialize,
    );
    assert.equal(mcp.status, 403);
    const patch = await call(
      t.url,
      '/api/settings/modules/docs',
      { host: `127.0.0.1:${port}`, origin: 'https://evil.example.com', 'content-type': 'application/json' },
      'PATCH',
      '{"enabled":false}',
    );
    assert.equal(patch.status, 403);
    assert.equal(t.hub.modules.isEnabled('docs'), true);
  });

  test('a loopback page on another port is another origin', async () => {
    const res = await call(t.url, '/api/health', {
      host: `127.0.0.1:${port}`,
      origin: 'http://localhost:3000',
    });
    assert.equal(res.status, 403);
  });

  test('the hub page itself (same origin) may call the API', async () => {
    const res = await call(t.url, '/api/health', {
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
    });
    assert.equal(res.status, 200);
  });

  test('no CORS headers are sent', async () => {
    const res = await call(t.url, '/api/health', {
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
    });
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });
});

describe('off loopback a token is required', () => {
  let t: TestHub;
  const token = 's3cret-token-for-tests';
  before(async () => {
    t = await startTestHub({
      tools: [...catalog, ...testTools],
      withoutServices: true,
      env: { COS_HOST: '0.0.0.0', COS_HUB_TOKEN: token },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    t.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(() => t.close());

  test('binding a non-loopback address without a token is refused at configuration', async () => {
    const { loadConfig } = await import('../../../server/config.ts');
    assert.throws(() => loadConfig({ COS_HOST: '0.0.0.0' }), /COS_HUB_TOKEN/);
  });

  test('/api without the token is 401 unauthorized', async () => {
    const res = await call(t.url, '/api/health', { host: '127.0.0.1' });
    assert.equal(res.status, 401);
    assert.equal(JSON.parse(res.body).error.category, 'unauthorized');
    assert.match(String(res.headers['www-authenticate']), /Bearer/);
  });

  test('/mcp without the token is 401', async () => {
    const res = await call(t.url, '/mcp', { host: '127.0.0.1', ...mcpHeaders }, 'POST', initialize);
    assert.equal(res.status, 401);
  });

  test('a wrong token is 401', async () => {
    const res = await call(t.url, '/api/health', { host: '127.0.0.1', authorization: 'Bearer nope' });
    assert.equal(res.status, 401);
  });

  test('the right token is accepted, from a LAN host name too', async () => {
    const res = await call(t.url, '/api/health', {
      host: 'devbox.lan:9188',
      authorization: `Bearer ${token}`,
    });
    assert.equal(res.status, 200);
  });

  test('the token never appears in an answer', async () => {
    const res = await call(t.url, '/api/health', { host: '127.0.0.1', authorization: `Bearer ${token}` });
    assert.doesNotMatch(res.body, new RegExp(token));
  });
});
