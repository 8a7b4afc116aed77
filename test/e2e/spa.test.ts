// The Hub SPA against the real hub: built bundle, real Fastify on a real port, a temp repository, and
// Debian's Chromium. Every page must load without console errors, and its screenshot is kept under
// test-results/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { connectClient, startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

const PAGES = [
  { path: '/board', title: 'Board', shot: 'board' },
  { path: '/graph', title: 'Graph', shot: 'graph' },
  { path: '/map', title: 'Map', shot: 'map-empty' },
  { path: '/search', title: 'Search', shot: 'search' },
  { path: '/activity', title: 'Activity', shot: 'activity' },
  { path: '/settings', title: 'Health & Settings', shot: 'settings' },
];

let hub: TestHub;
let browser: Browser;

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub();
  await hub.listen();
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

async function setModule(id: string, enabled: boolean): Promise<void> {
  const res = await fetch(`${hub.url}/api/settings/modules/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enabled }),
  });
  assert.equal(res.status, 200, await res.text());
}

describe('every page', () => {
  for (const theme of ['light', 'dark'] as const) {
    for (const p of PAGES) {
      test(`${p.path} loads in the ${theme} theme with no console errors`, async () => {
        const { page, errors, close } = await openPage(browser, { colorScheme: theme });
        try {
          await page.goto(`${hub.url}${p.path}`);
          await page.getByRole('heading', { level: 1, name: p.title }).waitFor();
          await settle(page);
          await screenshot(page, `${p.shot}-${theme}`);
          assert.deepEqual(errors, []);
        } finally {
          await close();
        }
      });
    }
  }

  test('/ opens the board, and the nav marks the current page in words and weight', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(hub.url);
      await page.getByRole('heading', { level: 1, name: 'Board' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/board');
      assert.equal(await page.getByRole('link', { name: 'Board' }).getAttribute('aria-current'), 'page');
      await page.getByRole('link', { name: 'Health & Settings' }).click();
      await page.getByRole('heading', { level: 1, name: 'Health & Settings' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/settings');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a route that is not a page says so and links home', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/nowhere`);
      await page.getByText('No page at /nowhere.').waitFor();
      await page.getByRole('link', { name: 'Go to the board' }).click();
      await page.getByRole('heading', { level: 1, name: 'Board' }).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('keyboard: Tab reaches the skip link first and a followed link focuses the heading, both visibly', async () => {
    const { page, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/settings`);
      await page.getByRole('heading', { level: 1, name: 'Health & Settings' }).waitFor();
      const focused = () =>
        page.evaluate(
          '(() => { const el = document.activeElement; const s = getComputedStyle(el); return { tag: el.tagName, text: el.textContent, outline: s.outlineStyle, width: s.outlineWidth }; })()',
        );
      await page.keyboard.press('Tab');
      assert.deepEqual(await focused(), {
        tag: 'A',
        text: 'Skip to content',
        outline: 'solid',
        width: '3px',
      });
      // Following a nav link by keyboard puts focus on the new page's heading.
      await page.getByRole('link', { name: 'Search' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Search' }).waitFor();
      assert.deepEqual(await focused(), { tag: 'H1', text: 'Search', outline: 'solid', width: '3px' });
    } finally {
      await close();
    }
  });

  test('the theme toggle switches to dark and back, and says which theme is on', async () => {
    const { page, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/settings`);
      const toggle = page.getByRole('button', { name: /^Theme:/ });
      await toggle.click(); // system → light
      await toggle.click(); // light → dark
      assert.equal(await page.evaluate('document.documentElement.dataset.theme'), 'dark');
      assert.match((await toggle.textContent()) ?? '', /Theme: dark/);
      await screenshot(page, 'settings-dark-toggle');
    } finally {
      await close();
    }
  });
});

describe('Health & Settings', () => {
  test('shows cos_health, the MCP URL and the Claude Code command', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/settings`);
      await page.getByTestId('health-status').waitFor();
      assert.match((await page.getByTestId('health-status').textContent()) ?? '', /Healthy|Degraded/);
      assert.equal(await page.getByTestId('mcp-url').textContent(), `${hub.url}/mcp`);
      const text = (await page.locator('main').textContent()) ?? '';
      assert.ok(
        text.includes(`claude mcp add --transport http cos ${hub.url}/mcp`),
        'the Claude Code command',
      );
      assert.ok(text.includes('"mcpServers"'), 'the generic JSON config');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`lists the MCP tool profiles with their URLs, and the commands follow the one chosen (${theme})`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: theme });
      try {
        await page.goto(`${hub.url}/settings`);
        const core = page.locator('[data-profile="core"]');
        await core.waitFor();
        for (const name of ['all', 'core', 'board', 'graph']) {
          const url = name === 'all' ? `${hub.url}/mcp` : `${hub.url}/mcp?tools=${name}`;
          const row = page.locator(`[data-profile="${name}"]`);
          assert.equal(await row.locator('code').textContent(), url, name);
          assert.match((await row.textContent()) ?? '', /\d+ tools/, name);
        }
        await core.locator('input[type="radio"]').check();
        assert.equal(await page.getByTestId('mcp-url').textContent(), `${hub.url}/mcp?tools=core`);
        const text = (await page.locator('main').textContent()) ?? '';
        assert.ok(text.includes(`claude mcp add --transport http cos ${hub.url}/mcp?tools=core`));
        await page.locator('#connect-title').scrollIntoViewIfNeeded();
        await screenshot(page, `settings-profiles-${theme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }

  test('turning a module off and on from the page changes the hub', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/settings`);
      const memory = page.locator('[data-module="memory"] input[type="checkbox"]');
      await memory.waitFor();
      assert.equal(await memory.isChecked(), true);
      // The checkbox follows the hub's answer, so click and wait for the new state rather than check().
      await memory.click();
      await page.locator('[data-module="memory"] .state-off').waitFor();
      assert.equal(hub.hub.modules.list().find((m) => m.id === 'memory')?.enabled, false);
      await memory.click();
      await page.locator('[data-module="memory"] .state-on').waitFor();
      assert.equal(hub.hub.modules.list().find((m) => m.id === 'memory')?.enabled, true);
      assert.ok(
        await page.locator('[data-module="kernel"] input').isDisabled(),
        'the kernel cannot be turned off',
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});

describe('a disabled module', () => {
  for (const [path, module] of [
    ['/board', 'tasks'],
    ['/graph', 'graph'],
    ['/activity', 'observability'],
  ] as const) {
    test(`${path} says the ${module} module is off and its Enable button turns it back on`, async () => {
      await setModule(module, false);
      const { page, close } = await openPage(browser);
      try {
        await page.goto(`${hub.url}${path}`);
        const notice = page.locator(`[data-module-disabled="${module}"]`);
        await notice.waitFor();
        assert.match((await notice.textContent()) ?? '', new RegExp(`“${module}” module is turned off`));
        await screenshot(page, `module-disabled-${module}`);
        await notice.getByRole('button', { name: `Enable ${module}` }).click();
        await notice.waitFor({ state: 'detached' });
        assert.equal(hub.hub.modules.list().find((m) => m.id === module)?.enabled, true);
      } finally {
        await close();
        await setModule(module, true);
      }
    });
  }

  test('the Activity page’s module off: its REST route and its MCP tools answer module_disabled', async () => {
    await setModule('observability', false);
    const client = await connectClient(hub.url);
    try {
      const res = await fetch(`${hub.url}/api/observability/timeline`);
      assert.equal(res.status, 403);
      const body: unknown = await res.json();
      assert.match(JSON.stringify(body), /"category":"module_disabled"/);
      const result = await client.callTool({ name: 'cos_metrics', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(JSON.stringify(result.structuredContent), /"category":"module_disabled"/);
    } finally {
      await client.close();
      await setModule('observability', true);
    }
  });
});
