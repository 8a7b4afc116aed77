// The Activity page's file reservations against the real hub, in real Chromium, light and dark: the
// reservations agents hold (paths, holder, reason, task, expiry) appear and leave live, from the stream,
// and a person's Release frees the files (an agent's edit is no longer warned) and goes on the holder's
// timeline.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { fixture } from '../support/hooks.ts';
import { startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

const HOLDER = 'c1a0de00-6b1d-4c7e-9f3a-2d5b7c9e0a11';
const CODEX = '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b';

let hub: TestHub;
let browser: Browser;

async function post(url: string, body: Record<string, unknown>) {
  const res = await fetch(`${hub.url}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json() as Promise<{ data: Record<string, unknown> }>;
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub({ env: { COS_RATE_LIMIT_RPS: '0' } });
  await hub.listen();
  await hub.hub.services.board.start();
  await post(
    '/api/hooks/events?client=claude-code',
    fixture('claude-code', 'session-start', hub.dir, { session_id: HOLDER }),
  );
  await post('/api/hooks/events?client=codex', fixture('codex', 'session-start', hub.dir));
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

describe('file reservations on the Activity page', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`reservations show live, and a person releases one (${colorScheme})`, async () => {
      const task = (await post('/api/board/tasks', { title: `Auth rework (${colorScheme})` })).data.task as {
        id: string;
      };
      const first = await post('/api/files/reservations', {
        agent_session: HOLDER,
        paths: [`src/auth-${colorScheme}/`, 'src/session.ts'],
        reason: 'splitting the auth module',
        task_id: task.id,
      });
      assert.equal(first.data.granted, true);
      const { page, errors, close } = await openPage(browser, { colorScheme });
      try {
        await page.goto(`${hub.url}/activity`);
        await page.getByTestId('stream-status').getByText('● Live').waitFor();
        await settle(page);
        const panel = page.getByTestId('reservations');
        const row = panel.locator('tr', { hasText: `src/auth-${colorScheme}/` });
        await row.waitFor();
        const text = (await row.textContent()) ?? '';
        assert.match(text, /src\/session\.ts/);
        assert.match(text, /claude-code c1a0de00/);
        assert.match(text, /splitting the auth module/);
        assert.match(text, new RegExp(task.id));
        assert.match(text, /60 min/);

        // Another agent's reservation arrives without a reload.
        const second = await post('/api/files/reservations', {
          agent_session: CODEX,
          paths: [`docs/${colorScheme}/**/*.md`],
          reason: 'docs pass',
          ttl_seconds: 600,
          exclusive: false,
        });
        assert.equal(second.data.granted, true);
        const live = panel.locator('tr', { hasText: `docs/${colorScheme}/**/*.md` });
        await live.waitFor();
        assert.match((await live.textContent()) ?? '', /codex 019a2b3c.*docs pass.*10 min/s);
        assert.match((await live.textContent()) ?? '', /\(shared\)/);
        await screenshot(page, `activity-reservations-${colorScheme}`);

        // A person releases the first: the row goes, the files are free, the holder's timeline says so.
        await row.getByRole('button', { name: /Release/ }).click();
        await row.waitFor({ state: 'detached' });
        const edit = await post(
          '/api/hooks/events?client=codex',
          fixture('codex', 'pre-tool-use-apply-patch', hub.dir, {
            tool_input: {
              command: '*** Begin Patch\n*** Update File: src/session.ts\n@@\n-a\n+b\n*** End Patch\n',
            },
          }),
        );
        assert.deepEqual(edit, {}, 'no warning once released');
        const timeline = await fetch(`${hub.url}/api/agents/activity?agent=${HOLDER}&kind=reservation`).then(
          (r) => r.json() as Promise<{ data: { entries: { summary: string }[] } }>,
        );
        assert.ok(timeline.data.entries.some((e) => /released by a person on the hub page/.test(e.summary)));
        // The codex one ends by itself later; release it here so the next run starts clean.
        await post('/api/files/release', { id: (second.data.reservation as { id: string }).id });
        await live.waitFor({ state: 'detached' });
        await panel.getByText(/No agent holds a file/).waitFor();
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }
});
