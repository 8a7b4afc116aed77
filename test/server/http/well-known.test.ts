// What MCP clients probe before they connect: the OAuth metadata documents of RFC 9728 and RFC 8414.
// The hub uses no OAuth, so each probe (and any other /.well-known/ path) is a 404 error envelope in
// JSON, never the SPA's page with 200, which a client would try to read as metadata.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
before(async () => {
  t = await startTestHub({ withoutServices: true });
});
after(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1:9188' } });

for (const path of [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/.well-known/anything-else?x=1',
]) {
  test(`GET ${path} is a 404 not_found envelope in JSON`, async () => {
    const res = await get(path);
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json();
    assert.equal(body.ok, false);
    assert.equal(body.error.category, 'not_found');
    assert.equal(body.error.retryable, false);
    assert.match(body.error.message, /\/\.well-known\//);
  });
}

test('a page path still gets the SPA (HTML, 200)', async () => {
  const res = await get('/board');
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/html/);
});
