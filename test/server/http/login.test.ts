// The person's way into the SPA when the hub has a token: a one-time link sets an HttpOnly,
// SameSite=Strict cookie that stands for the token, and the Host and Origin checks still apply to it.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { LoginSessions } from '../../../server/http/login.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

const TOKEN = 'login-test-token';

function call(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: { host: `127.0.0.1:${port}`, ...headers },
        setHost: false,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('signing a browser in with a one-time link', () => {
  let t: TestHub;
  let port: number;
  before(async () => {
    t = await startTestHub({ env: { COS_HUB_TOKEN: TOKEN }, withoutServices: true, listen: true });
    port = Number(new URL(t.url).port);
  });
  after(() => t.close());

  async function signIn(): Promise<string> {
    const link = await call(port, '/api/login-links', { authorization: `Bearer ${TOKEN}` }, 'POST');
    assert.equal(link.status, 200, link.body);
    const path = (JSON.parse(link.body) as { data: { path: string } }).data.path;
    const res = await call(port, path);
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, '/');
    const cookie = String(res.headers['set-cookie']);
    return cookie.split(';', 1)[0]!;
  }

  test('the link sets an HttpOnly, SameSite=Strict cookie that opens the API, and works once', async () => {
    const link = await call(port, '/api/login-links', { authorization: `Bearer ${TOKEN}` }, 'POST');
    const path = (JSON.parse(link.body) as { data: { path: string } }).data.path;
    assert.doesNotMatch(path, new RegExp(TOKEN), 'the token is never in the link');
    const first = await call(port, path);
    assert.equal(first.status, 303);
    assert.equal(first.headers['cache-control'], 'no-store');
    const setCookie = String(first.headers['set-cookie']);
    assert.match(setCookie, /^cos_hub_session=[\w-]{40,};/);
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.match(setCookie, /Path=\//);
    assert.doesNotMatch(setCookie, new RegExp(TOKEN));
    const cookie = setCookie.split(';', 1)[0]!;
    assert.equal((await call(port, '/api/health', { cookie })).status, 200);
    assert.equal((await call(port, '/api/health')).status, 401);
    const again = await call(port, path);
    assert.equal(again.status, 401, 'a spent link does not sign in twice');
    assert.equal(again.headers['set-cookie'], undefined);
    assert.match(again.body, /cos login/);
  });

  test('a made-up code or cookie opens nothing', async () => {
    assert.equal((await call(port, '/login?code=nope')).status, 401);
    assert.equal((await call(port, '/login')).status, 401);
    assert.equal((await call(port, '/api/health', { cookie: 'cos_hub_session=made-up' })).status, 401);
  });

  test('the cookie does not lift the Origin checks', async () => {
    const cookie = await signIn();
    const cross = await call(port, '/api/health', { cookie, origin: 'http://evil.example.com' });
    assert.equal(cross.status, 403);
    const otherPort = await call(port, '/api/health', { cookie, origin: 'http://127.0.0.1:1' });
    assert.equal(otherPort.status, 403);
    const site = await call(port, '/api/health', { cookie, 'sec-fetch-site': 'cross-site' });
    assert.equal(site.status, 403);
    const same = await call(port, '/api/health', { cookie, origin: `http://127.0.0.1:${port}` });
    assert.equal(same.status, 200);
  });

  test('a forged Host without the cookie or the token is still refused (DNS rebinding)', async () => {
    const res = await call(port, '/api/health', { host: `evil.example.com:${port}` });
    assert.equal(res.status, 403);
  });

  test('creating a link needs the token', async () => {
    assert.equal((await call(port, '/api/login-links', {}, 'POST')).status, 401);
  });

  test('codes expire after ten minutes and are good once', () => {
    let now = 1_000_000;
    const logins = new LoginSessions(() => now);
    const { code } = logins.issue();
    now += 10 * 60_000 + 1;
    assert.equal(logins.redeem(code), undefined);
    const fresh = logins.issue();
    const value = logins.redeem(fresh.code);
    assert.ok(value);
    assert.equal(logins.redeem(fresh.code), undefined);
    assert.equal(logins.isSignedIn(`a=b; cos_hub_session=${value}`), true);
  });
});
