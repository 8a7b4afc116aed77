// The Activity page's messages in Chromium against the real hub, with two simulated Claude Code agents
// (recorded hook payloads): a person sends a message to one agent and it reaches that agent's next hook
// answer; the thread shows it went into the agent's context, live; an agent's message to the people
// arrives as a notification with a count, is marked read, and is answered in its thread. Screenshots in
// light and dark.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { fixture } from '../support/hooks.ts';
import { startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

let hub: TestHub;
let browser: Browser;
const ONE = 'a11ce000-0000-4000-8000-000000000001';
const TWO = 'b0b00000-0000-4000-8000-000000000002';

async function hook(session: string, name: string): Promise<string> {
  const res = await fetch(`${hub.url}/api/hooks/events?client=claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fixture('claude-code', name, hub.dir, { session_id: session })),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { hookSpecificOutput?: { additionalContext?: string } };
  return body.hookSpecificOutput?.additionalContext ?? '';
}

async function agentSends(from: string, payload: Record<string, unknown>): Promise<{ id: string }> {
  const res = await fetch(`${hub.url}/api/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_session: from, ...payload }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { data: { id: string } }).data;
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub({ env: { COS_RATE_LIMIT_RPS: '0' } });
  await hub.listen();
  await hook(ONE, 'session-start');
  await hook(TWO, 'session-start');
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

describe('Activity: messages', () => {
  test('a person messages an agent, sees it enter its context, and answers a notification in its thread', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/activity`);
      await page.getByTestId('stream-status').getByText('● Live').waitFor();
      const card = page.getByTestId('messages');
      await card.getByText('nothing unread').waitFor();

      // To one agent, picked from the live agents.
      const compose = card.getByTestId('message-compose');
      await compose.getByLabel('To', { exact: true }).selectOption(ONE);
      await compose.getByLabel('Subject', { exact: true }).fill('Rebase first');
      await compose
        .getByLabel('Message', { exact: true })
        .fill('main moved: please rebase before your next edit');
      await compose.getByLabel(/Urgent/).check();
      await compose.getByRole('button', { name: 'Send' }).click();
      await compose
        .getByRole('status')
        .getByText(/Sent to claude-code · a11ce000…/)
        .waitFor();
      const thread = card.getByTestId('message-threads').locator('li[data-thread]').first();
      await thread.getByText('Rebase first').waitFor();
      await thread.getByText('waiting for its next hook').waitFor();

      // The agent's next hook answer carries it (urgent: even before a tool runs), and the page says so live.
      const context = await hook(ONE, 'pre-tool-use-bash');
      assert.match(context, /\[urgent\] from a person on the hub's page .*Rebase first: main moved/);
      await thread.getByText(/: in its context/).waitFor({ timeout: 10_000 });
      assert.equal(await hook(TWO, 'user-prompt-submit'), '', 'the other agent got nothing');

      // An agent writes to the people: a notification, counted, live.
      const note = await agentSends(TWO, {
        to: 'human',
        subject: 'Need a decision',
        body: 'keep the v1 API?',
      });
      await card.getByTestId('messages-unread').getByText('1 unread for you').waitFor({ timeout: 10_000 });
      const item = card.getByTestId('message-notifications').locator(`[data-message="${note.id}"]`);
      await item.getByText('keep the v1 API?').waitFor();
      await settle(page);
      await screenshot(page, 'activity-messages-light');

      await item.getByRole('button', { name: 'Mark read' }).click();
      await card.getByText('nothing unread').waitFor({ timeout: 10_000 });
      await item.getByText(/^read /).waitFor();

      // Reply in its thread: it reaches that agent, in the same thread.
      await item.getByRole('button', { name: 'Reply' }).click();
      await compose.getByText(/Reply to/).waitFor();
      await compose.getByLabel('Message', { exact: true }).fill('yes, keep v1 until March');
      await compose.getByRole('button', { name: 'Send' }).click();
      const replied = card.getByTestId('message-threads').locator(`li[data-thread="${note.id}"]`);
      await replied.getByText('yes, keep v1 until March').waitFor({ timeout: 10_000 });
      await replied.getByText('2 messages', { exact: false }).waitFor();
      assert.match(
        await hook(TWO, 'user-prompt-submit'),
        new RegExp(`\\(thread ${note.id}\\): yes, keep v1`),
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('dark: the same card reads in the dark theme', async () => {
    await agentSends(ONE, { to: 'human', body: 'rebased, all green', urgent: true });
    const { page, errors, close } = await openPage(browser, { colorScheme: 'dark' });
    try {
      await page.goto(`${hub.url}/activity`);
      const card = page.getByTestId('messages');
      await card.getByTestId('messages-unread').getByText('1 unread for you').waitFor();
      await card.getByTestId('message-notifications').getByText('rebased, all green').waitFor();
      await settle(page);
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, 'activity-messages-dark');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
