// The Search page against the real hub on a seeded repository: one query finds a task, a doc heading
// and a memory, each grouped by layer and opening where it lives.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

let hub: TestHub;
let browser: Browser;

async function post(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${hub.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, await res.text());
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub();
  mkdirSync(join(hub.dir, 'docs'), { recursive: true });
  mkdirSync(hub.config.tasksDir, { recursive: true });
  writeFileSync(
    join(hub.dir, 'docs', 'guide.md'),
    '# Guide\n\nHow to run the hub.\n\n## Rotating the flamingo keys\n\nThe flamingo keys rotate every night; restart the hub after.\n',
  );
  mkdirSync(join(hub.dir, 'src'), { recursive: true });
  writeFileSync(join(hub.dir, 'src', 'keys.ts'), 'export function rotateFlamingoKeys(): void {}\n');
  // As `cos serve` does: start the background services (the docs index scans the repository).
  await hub.hub.start();
  await hub.listen();
  await post('/api/board/tasks', {
    title: 'Rotate the flamingo credentials',
    kind: 'security',
    priority: 'P1',
  });
  await post('/api/memory/observations', {
    title: 'Flamingo keys expire at midnight',
    narrative: 'The flamingo keys are only valid for one day, so a long session must fetch new ones.',
    type: 'pitfall',
    session_id: 'e2e-session',
  });
  await until('the graph index', async () => {
    const res = await fetch(`${hub.url}/api/graph/search?query=rotateFlamingoKeys`);
    return res.ok && (await res.text()).includes('rotateFlamingoKeys');
  });
  // The docs index watches the repository; wait until it has seen the new guide.
  await until('the docs index', async () => {
    const res = await fetch(`${hub.url}/api/search/docs?query=flamingo`);
    const body: unknown = await res.json();
    return JSON.stringify(body).includes('guide.md');
  });
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

describe('Search', () => {
  test('one query finds a task, a doc heading, a memory and a symbol, grouped by layer', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/search`);
      await page.getByRole('searchbox').fill('flamingo');
      await page.getByRole('searchbox').press('Enter');
      const results = page.getByTestId('search-results');
      await results.waitFor();
      await settle(page);
      const tasks = results.locator('[data-layer="tasks"]');
      const docs = results.locator('[data-layer="docs"]');
      const memory = results.locator('[data-layer="memory"]');
      await tasks.getByRole('link', { name: /TASK-1: Rotate the flamingo credentials/ }).waitFor();
      await docs.getByText('Guide › Rotating the flamingo keys').waitFor();
      assert.match((await docs.textContent()) ?? '', /docs\/guide\.md#rotating-the-flamingo-keys/);
      await memory.getByText('Flamingo keys expire at midnight', { exact: true }).waitFor();
      await memory.getByRole('button', { name: 'Read it' }).click();
      await memory
        .locator('.memory-details')
        .getByText(/a long session must fetch new ones/)
        .waitFor();
      const symbols = results.locator('[data-layer="graph"]');
      await symbols.getByRole('link', { name: 'rotateFlamingoKeys' }).waitFor();
      await screenshot(page, 'search-results');

      // A task result opens in the board's drawer.
      await tasks.getByRole('link', { name: /TASK-1/ }).click();
      await page
        .getByTestId('task-drawer')
        .getByRole('heading', { name: /TASK-1: Rotate the flamingo credentials/ })
        .waitFor();
      assert.equal(new URL(page.url()).pathname, '/board');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a layer whose module is off says so inside its group and offers to enable it', async () => {
    const res = await fetch(`${hub.url}/api/settings/modules/memory`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    assert.equal(res.status, 200);
    const { page, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/search?q=flamingo`);
      const notice = page.locator('[data-layer="memory"] [data-module-disabled="memory"]');
      await notice.waitFor();
      await page
        .locator('[data-layer="tasks"]')
        .getByRole('link', { name: /TASK-1/ })
        .waitFor();
      await notice.getByRole('button', { name: 'Enable memory' }).click();
      await page
        .locator('[data-layer="memory"]')
        .getByText('Flamingo keys expire at midnight', { exact: true })
        .waitFor();
    } finally {
      await close();
    }
  });
});
