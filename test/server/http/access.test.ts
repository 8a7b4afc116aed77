// With a token set and none sent, no spelling of a protected path reaches its route: the token is
// required on the route the router picks, not on the raw URL text. Over a real port with node:http
// (fetch normalises URLs and would hide every variant), for every route family.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import { variants } from '../../support/path-variants.ts';
import { rawCall as call, reachedHandler } from '../../support/raw-http.ts';

const TOKEN = 'access-test-token';

describe('with a token set and none sent, no spelling of a protected path reaches its route', () => {
  let t: TestHub;
  let port: number;
  const auth = { authorization: `Bearer ${TOKEN}` };
  const json = { 'content-type': 'application/json' };
  const mcp = { ...json, accept: 'application/json, text/event-stream' };
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });

  before(async () => {
    t = await startTestHub({ env: { COS_HUB_TOKEN: TOKEN, COS_RATE_LIMIT_RPS: '0' } });
    mkdirSync(t.config.tasksDir, { recursive: true });
    await t.listen();
    port = Number(new URL(t.url).port);
  });
  after(() => t.close());

  const families: {
    name: string;
    path: string;
    method: string;
    headers?: Record<string, string>;
    body?: string;
    /** A side effect that must not happen without the token. */
    untouched?: (t: TestHub) => void;
  }[] = [
    { name: 'REST read', path: '/api/board/list', method: 'GET' },
    { name: 'health', path: '/api/health', method: 'GET' },
    {
      name: 'REST write',
      path: '/api/board/tasks',
      method: 'POST',
      headers: json,
      body: '{"title":"forged"}',
      untouched: (t) => assert.equal(t.hub.db.prepare('SELECT count(*) FROM tasks').pluck().get(), 0),
    },
    {
      name: 'settings PATCH',
      path: '/api/settings/modules/memory',
      method: 'PATCH',
      headers: json,
      body: '{"enabled":false}',
      untouched: (t) => assert.equal(t.hub.modules.isEnabled('memory'), true),
    },
    { name: 'metrics', path: '/metrics', method: 'GET' },
    { name: 'event stream', path: '/api/stream/events', method: 'GET' },
    {
      name: 'MCP',
      path: '/mcp',
      method: 'POST',
      headers: mcp,
      body: initialize,
      untouched: (t) => assert.equal(t.app.mcpSessions.size, 0),
    },
  ];

  for (const family of families) {
    test(`${family.name}: ${family.method} ${family.path}`, async () => {
      const opened: string[] = [];
      for (const path of variants(family.path)) {
        const base = { method: family.method, body: family.body };
        const without = await call(port, path, { ...base, headers: { ...family.headers } });
        assert.ok(
          !reachedHandler(without),
          `${family.method} ${path} reached the route without the token: ${without.status} ${without.body.slice(0, 200)}`,
        );
        family.untouched?.(t);
        if (without.status === 401) {
          assert.equal(JSON.parse(without.body).error.category, 'unauthorized', path);
          continue;
        }
        // Not refused: then it must route nowhere the token would open either.
        const withToken = await call(port, path, { ...base, headers: { ...family.headers, ...auth } });
        if (reachedHandler(withToken)) opened.push(path);
        assert.equal(
          withToken.status,
          without.status,
          `${path}: ${withToken.status} with the token, ${without.status} without`,
        );
      }
      assert.deepEqual(opened, [], 'spellings the token opens but the missing token did not close');
      // The canonical path itself is refused, and opens with the token.
      const canonical = await call(port, family.path, {
        method: family.method,
        body: family.body,
        headers: { ...family.headers, ...auth },
      });
      assert.ok(
        reachedHandler(canonical),
        `${family.path} with the token: ${canonical.status} ${canonical.body.slice(0, 200)}`,
      );
    });
  }

  test('the SPA, its files and the API description are public; unknown API paths are refused, not 404', async () => {
    for (const path of ['/', '/board', '/graph/x', '/openapi.json', '/docs', '/docs/']) {
      const res = await call(port, path);
      assert.ok(res.status === 200 || res.status === 302, `${path}: ${res.status}`);
    }
    for (const path of ['/api/nope', '/%61pi/nope', '/api', '/mcp/x', '/METRICS']) {
      const res = await call(port, path);
      assert.equal(res.status, 401, path);
    }
  });

  test('an unmatched variant is judged on its normalised path', async () => {
    const { normalisedPath, isProtectedPath } = await import('../../../server/http/security.ts');
    for (const family of families) {
      for (const path of variants(family.path)) {
        const n = normalisedPath(path);
        // Every spelling a lenient reader maps onto the family stays in it (double encoding does not).
        if (!path.includes('%25')) assert.ok(isProtectedPath(n), `${path} → ${n}`);
      }
    }
  });
});
