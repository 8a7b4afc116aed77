// The SPA on a hub with a token, in Chromium: without the login cookie every page says how to get in;
// the one-time link signs the browser in (an HttpOnly, SameSite=Strict cookie the page's scripts cannot
// read), the board then loads, and a page on another origin still cannot use the hub through the cookie.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

const TOKEN = 'e2e-login-token';
let hub: TestHub;
let browser: Browser;
let other: Server;
let otherUrl: string;

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub({ env: { COS_HUB_TOKEN: TOKEN } });
  mkdirSync(hub.config.tasksDir, { recursive: true });
  await hub.listen();
  const res = await fetch(`${hub.url}/api/board/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ title: 'Signed-in people see this card' }),
  });
  assert.equal(res.status, 200, await res.text());
  // Another origin on the same machine (same site for SameSite: only the Origin check stops it).
  other = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>other</title>'),
  );
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const address = other.address();
  otherUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
});

after(async () => {
  await browser?.close();
  await hub?.close();
  await new Promise<void>((resolve) => (other ? other.close(() => resolve()) : resolve()));
});

describe('the SPA when the hub has a token', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`without the cookie the board says how to get in, then the one-time link signs in (${colorScheme})`, async () => {
      const { page, context, close } = await openPage(browser, { colorScheme });
      try {
        await page.goto(`${hub.url}/board`);
        await page
          .getByText(/cos login/)
          .first()
          .waitFor();
        await screenshot(page, `login-needed-${colorScheme}`);

        const { code } = hub.app.logins.issue();
        const link = `${hub.url}/login?code=${code}`;
        await page.goto(link);
        assert.equal(new URL(page.url()).pathname, '/', 'the link redirects to the SPA');
        await page.goto(`${hub.url}/board`);
        await page.getByText('Signed-in people see this card').waitFor();
        await settle(page);
        await screenshot(page, `login-board-${colorScheme}`);

        const cookies = await context.cookies(hub.url);
        const session = cookies.find((c) => c.name === 'cos_hub_session');
        assert.ok(session, 'the login cookie is set');
        assert.equal(session.httpOnly, true);
        assert.equal(session.sameSite, 'Strict');
        assert.ok(!session.value.includes(TOKEN));
        assert.equal(await page.evaluate('document.cookie'), '', "the page's scripts cannot read it");
        // The live stream (EventSource) is authenticated by the cookie too.
        const streamStatus = await page.evaluate(
          () =>
            new Promise<string>((resolve) => {
              const es = new EventSource('/api/stream/events');
              es.addEventListener('connected', () => {
                es.close();
                resolve('connected');
              });
              es.onerror = () => {
                es.close();
                resolve('error');
              };
            }),
        );
        assert.equal(streamStatus, 'connected');

        // Spent: the same link does not sign in a second browser.
        const second = await browser.newContext();
        try {
          const p2 = await second.newPage();
          const answer = await p2.goto(link);
          assert.equal(answer?.status(), 401);
          assert.deepEqual(
            (await second.cookies(hub.url)).filter((c) => c.name === 'cos_hub_session'),
            [],
          );
        } finally {
          await second.close();
        }
      } finally {
        await close();
      }
    });
  }

  test('a page on another origin cannot use the hub through the cookie', async () => {
    const { page, context, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/login?code=${hub.app.logins.issue().code}`);
      assert.ok((await context.cookies(hub.url)).some((c) => c.name === 'cos_hub_session'));
      await page.goto(otherUrl);
      const outcome = await page.evaluate(async (url) => {
        const tries: string[] = [];
        for (const init of [
          { method: 'GET', credentials: 'include' as const },
          {
            method: 'POST',
            credentials: 'include' as const,
            mode: 'no-cors' as const,
            headers: { 'content-type': 'text/plain' },
            body: '{"title":"forged from another origin"}',
          },
        ]) {
          try {
            const res = await fetch(`${url}/api/board/tasks`, init);
            tries.push(`${init.method} ${res.type} ${res.status}`);
          } catch (err) {
            tries.push(`${init.method} ${(err as Error).name}`);
          }
        }
        return tries;
      }, hub.url);
      assert.equal(outcome[0], 'GET TypeError', 'no CORS: the answer is not readable');
      const list = await fetch(`${hub.url}/api/board/list`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.doesNotMatch(await list.text(), /forged from another origin/);
    } finally {
      await close();
    }
  });
});
