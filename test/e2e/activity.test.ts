// The Activity page against the real hub: a tool call from a real MCP client shows up live (no reload),
// with its agent in the presence list and the header's summary.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser } from 'playwright-core';
import { connectClient, startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot } from './browser.ts';

let hub: TestHub;
let browser: Browser;
let client: Client | undefined;

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub();
  await hub.listen();
});

after(async () => {
  await client?.close();
  await browser?.close();
  await hub?.close();
});

describe('Activity', () => {
  test('a tool call from an MCP client appears without reloading, with its agent', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/activity`);
      await page.getByTestId('stream-status').getByText('● Live').waitFor();
      assert.equal(await page.locator('[data-testid="timeline"] [data-tool="cos_health"]').count(), 0);

      client = await connectClient(hub.url);
      const result = await client.callTool({ name: 'cos_health', arguments: {} });
      assert.notEqual(result.isError, true);

      const row = page.locator('[data-testid="timeline"] [data-tool="cos_health"]').first();
      await row.waitFor({ timeout: 10_000 });
      const text = (await row.textContent()) ?? '';
      assert.match(text, /cos_health/);
      assert.match(text, /mcp/);
      assert.match(text, /✓ ok/);
      assert.match(text, /\d+ ms/);
      await page.getByTestId('agents').getByText('cos-hub-test').waitFor({ timeout: 10_000 });
      await page
        .getByTestId('presence-summary')
        .getByText(/1 active/)
        .waitFor({ timeout: 10_000 });
      await screenshot(page, 'activity-live');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test("the page's own reads are not recorded: the calls and counts are the agents'", async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      // Read through the hub's database, not a REST call, which would itself be recorded.
      const recorded = () =>
        hub.hub.db.prepare('SELECT tool, transport FROM tool_calls ORDER BY id').all() as {
          tool: string;
          transport: string;
        }[];
      const before = recorded().length;
      await page.goto(`${hub.url}/activity`);
      await page.getByTestId('stream-status').getByText('● Live').waitFor();
      client ??= await connectClient(hub.url);
      // An agent's call: the page reloads its lists on it, and none of those reloads is recorded either.
      await client.callTool({ name: 'cos_module_list', arguments: {} });
      await page.locator('[data-testid="timeline"] [data-tool="cos_module_list"]').first().waitFor();
      // Let the page's throttled reloads and its other pages' first loads happen too.
      await page.goto(`${hub.url}/board`);
      await page.goto(`${hub.url}/settings`);
      await page.goto(`${hub.url}/activity`);
      await page.locator('[data-testid="timeline"] [data-tool="cos_module_list"]').first().waitFor();
      hub.hub.services.observability.calls.flush();
      const added = recorded().slice(before);
      assert.deepEqual(
        added.map((r) => `${r.tool} over ${r.transport}`),
        ['cos_module_list over mcp'],
        "the only call recorded is the agent's",
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a failed call shows its category', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/activity`);
      await page.getByTestId('stream-status').getByText('● Live').waitFor();
      client ??= await connectClient(hub.url);
      // The kernel cannot be disabled: a validation error from a real tool.
      const result = await client.callTool({
        name: 'cos_module_set',
        arguments: { id: 'kernel', enabled: false },
      });
      assert.equal(result.isError, true);
      const row = page.locator('[data-testid="timeline"] [data-tool="cos_module_set"]').first();
      await row.waitFor({ timeout: 10_000 });
      assert.match((await row.textContent()) ?? '', /✗ validation/);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
