// The Activity page's agents, with hook events from three simulated agents (recorded payloads posted to
// the real hub) and an MCP session linked to one of them: who is working on what, the agents table
// within its card, one agent's timeline and files, the conflicts, and one count of problems. Screenshots
// in light and dark at 1440 and 800 px.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser } from 'playwright-core';
import { fixture } from '../support/hooks.ts';
import { connectClient, startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

let hub: TestHub;
let browser: Browser;
let client: Client;
const CLAUDE = 'c1a0de00-0000-4000-8000-000000000001';
const CODEX = 'c0de0000-0000-4000-8000-000000000002';
const GEMINI = 'ge000000-0000-4000-8000-000000000003';

async function hook(
  client: 'claude-code' | 'codex' | 'gemini',
  name: string,
  overrides: Record<string, unknown> = {},
) {
  const res = await fetch(`${hub.url}/api/hooks/events?client=${client}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fixture(client, name, hub.dir, overrides)),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub({ env: { COS_RATE_LIMIT_RPS: '0' } });
  await hub.listen();
  mkdirSync(join(hub.dir, 'src'), { recursive: true });
  mkdirSync(join(hub.dir, 'docs/tasks'), { recursive: true });
  writeFileSync(
    join(hub.dir, 'src/math.ts'),
    'export function add(a: number, b: number) {\n  return a + b;\n}\n',
  );
  // A task in progress, claimed by the Claude Code session (its id is the agent_session it was told).
  const created = await hub.app.inject({
    method: 'POST',
    url: '/api/board/tasks',
    headers: { host: '127.0.0.1' },
    payload: { title: 'Make the math tests pass', labels: ['ready'], priority: 'P1' },
  });
  assert.equal(created.statusCode, 200, created.body);
  await hook('claude-code', 'session-start', { session_id: CLAUDE });
  client = await connectClient(hub.url);
  await client.callTool({ name: 'cos_task_claim_next', arguments: { agent_session: CLAUDE } });
  await hook('claude-code', 'user-prompt-submit', { session_id: CLAUDE });
  await hook('claude-code', 'pre-tool-use-bash', { session_id: CLAUDE });
  await hook('claude-code', 'post-tool-use-failure-bash', { session_id: CLAUDE });
  await hook('claude-code', 'pre-tool-use-edit', { session_id: CLAUDE });
  await hook('claude-code', 'post-tool-use-edit', { session_id: CLAUDE });
  await hook('codex', 'session-start', { session_id: CODEX });
  await hook('codex', 'pre-tool-use-apply-patch', { session_id: CODEX });
  await hook('codex', 'post-tool-use-bash', { session_id: CODEX });
  await hook('gemini', 'session-start', { session_id: GEMINI });
  await hook('gemini', 'before-tool-write-file', { session_id: GEMINI });
  await hook('gemini', 'session-end', { session_id: GEMINI });
  // A failed call, counted once in the problems and in the hub summary.
  await client.callTool({ name: 'cos_module_set', arguments: { id: 'kernel', enabled: false } });
});

after(async () => {
  await client?.close();
  await browser?.close();
  await hub?.close();
});

describe('Activity: agents', () => {
  test('who is working on what, the agents, a timeline, files and conflicts, with one count of problems', async () => {
    const { page, errors, close } = await openPage(browser, { viewport: { width: 1440, height: 1000 } });
    try {
      await page.goto(`${hub.url}/activity`);
      await page.getByTestId('stream-status').getByText('● Live').waitFor();
      await settle(page);
      const working = page.getByTestId('working-on');
      await working.getByText(/Make the math tests pass/).waitFor();
      assert.match((await working.textContent()) ?? '', /active claude-code · c1a0de00…/);
      const agents = page.getByTestId('agents');
      await agents.locator(`[data-agent="${CLAUDE}"]`).waitFor();
      await agents.locator(`[data-agent="${CODEX}"]`).waitFor();
      assert.equal(
        await agents.locator(`[data-agent="${GEMINI}"]`).count(),
        0,
        'an ended agent is not listed as here',
      );
      assert.match((await agents.locator(`[data-agent="${CLAUDE}"]`).textContent()) ?? '', /hooks \+ MCP/);
      // The table stays inside its card.
      const fits = await page.evaluate(`(() => {
        const table = document.querySelector('[data-testid="agents"]');
        const card = table.closest('.card');
        return table.getBoundingClientRect().right <= card.getBoundingClientRect().right + 1;
      })()`);
      assert.ok(fits, 'the agents table does not overflow its card');
      const timeline = page.getByTestId('agent-timeline');
      await timeline
        .getByText(/Edit src\/math\.ts/)
        .first()
        .waitFor();
      await page.getByTestId('agent-files').getByText('src/math.ts').waitFor();
      await page
        .getByTestId('conflicts')
        .getByText(/src\/math\.ts/)
        .first()
        .waitFor();
      const problems = await page.getByTestId('problem-counts').textContent();
      const summary = (
        await hub.app.inject({ method: 'GET', url: '/api/hub/summary', headers: { host: '127.0.0.1' } })
      ).json().data;
      assert.match(problems ?? '', new RegExp(`^${summary.failed_calls_last_hour} failed tool call`));
      assert.ok(summary.failed_calls_last_hour >= 1);
      // Picking another agent shows its timeline.
      await agents.locator(`[data-agent="${CODEX}"] button`).click();
      await timeline.getByText(/apply_patch src\/math\.ts/).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  for (const colorScheme of ['light', 'dark'] as const)
    for (const width of [1440, 800])
      test(`screenshot, ${colorScheme}, ${width} px`, async () => {
        const { page, errors, close } = await openPage(browser, {
          colorScheme,
          viewport: { width, height: 900 },
        });
        try {
          await page.goto(`${hub.url}/activity`);
          await page.getByTestId('stream-status').getByText('● Live').waitFor();
          await settle(page);
          await page.getByTestId('agents').locator(`[data-agent="${CLAUDE}"]`).waitFor();
          await page.getByTestId('agent-files').waitFor();
          await screenshot(page, `activity-agents-${colorScheme}-${width}`);
          const overflow = await page.evaluate(
            'document.documentElement.scrollWidth > window.innerWidth + 1',
          );
          assert.equal(overflow, false, 'nothing wider than the window');
          assert.deepEqual(errors, []);
        } finally {
          await close();
        }
      });
});

describe('Health & Settings: connect and hook settings', () => {
  for (const colorScheme of ['light', 'dark'] as const)
    test(`each client's connect plan, with copy buttons, and the hook settings (${colorScheme})`, async () => {
      const { page, errors, close } = await openPage(browser, {
        colorScheme,
        viewport: { width: 1440, height: 1000 },
      });
      try {
        await page.goto(`${hub.url}/settings`);
        await settle(page);
        const claude = page.getByTestId('connect-claude-code');
        await claude.getByText('.claude/settings.local.json (new)').waitFor();
        assert.match((await claude.textContent()) ?? '', /\/api\/hooks\/events\?client=claude-code/);
        await page.getByRole('tab', { name: 'Codex' }).click();
        const codex = page.getByTestId('connect-codex');
        await codex.getByText('.codex/config.toml (new)').waitFor();
        assert.match((await codex.textContent()) ?? '', /\[mcp_servers\.cos\]/);
        assert.ok((await codex.getByRole('button', { name: /Copy/ }).count()) >= 3);
        const problems = await page.getByTestId('summary-errors').textContent();
        assert.match(problems ?? '', /failed tool call/);
        await Promise.all([
          page.waitForResponse(
            (r) => r.url().includes('/api/settings/hooks') && r.request().method() === 'PATCH',
          ),
          page.getByTestId('hook-settings').getByRole('combobox').selectOption('block'),
        ]);
        const saved = (
          await hub.app.inject({ method: 'GET', url: '/api/settings/hooks', headers: { host: '127.0.0.1' } })
        ).json();
        assert.equal(saved.data.settings.conflicts, 'block');
        await Promise.all([
          page.waitForResponse(
            (r) => r.url().includes('/api/settings/hooks') && r.request().method() === 'PATCH',
          ),
          page.getByTestId('hook-settings').getByRole('combobox').selectOption('warn'),
        ]);
        await page.getByRole('tab', { name: 'Gemini CLI' }).click();
        await page.getByTestId('connect-gemini').getByText('.gemini/settings.json (new)').waitFor();
        await screenshot(page, `settings-connect-${colorScheme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
});
