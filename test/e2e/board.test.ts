// The board page against the real hub: cards from real task files, a drag that rewrites the task file
// on disk, a refused drag that snaps back with the hub's reason, and create/edit through the forms.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { fixture } from '../support/hooks.ts';
import { connectClient, startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot } from './browser.ts';

let hub: TestHub;
let browser: Browser;

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${hub.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json: unknown = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  assert.ok(json !== null && typeof json === 'object');
  return json as Record<string, unknown>;
}

async function taskFile(id: string): Promise<string> {
  const body = await api('GET', `/api/board/tasks/${id}`);
  const data = body.data as { path: string };
  return readFileSync(join(hub.dir, data.path), 'utf8');
}

/** Resource errors the browser logs for a refused request are expected where a test provokes one. */
const notHttpStatus = (line: string) =>
  !/Failed to load resource: the server responded with a status of 4\d\d/.test(line);

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub();
  mkdirSync(hub.config.tasksDir, { recursive: true });
  await hub.listen();
  await api('POST', '/api/board/tasks', { title: 'Write the task parser', kind: 'feature', priority: 'P1' });
  await api('POST', '/api/board/tasks', {
    title: 'Fix the login redirect',
    kind: 'bug',
    priority: 'P0',
    labels: ['ready'],
  });
  await api('POST', '/api/board/tasks', { title: 'Document the board', kind: 'docs', priority: 'P3' });
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

describe('Board', () => {
  test('shows every task in its column with priority and kind in words', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/board`);
      const icebox = page.locator('[data-status="icebox"]');
      await icebox.locator('[data-task-id="TASK-1"]').waitFor();
      assert.equal(await icebox.locator('[data-task-id]').count(), 3);
      const card = icebox.locator('[data-task-id="TASK-2"]');
      assert.match((await card.textContent()) ?? '', /P0.*bug.*TASK-2.*Fix the login redirect.*#ready/);
      await screenshot(page, 'board-columns');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('dragging a card to another column moves it and rewrites its task file', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/board`);
      const card = page.locator('[data-status="icebox"] [data-task-id="TASK-1"]');
      await card.waitFor();
      assert.match(await taskFile('TASK-1'), /^status: icebox$/m);
      // The card moves at once; the file is rewritten when the hub answers the move (networkidle would
      // not wait for it: the page reached that state before the drag, and a loaded machine is slower).
      const moved = page.waitForResponse(
        (r) => r.request().method() === 'POST' && r.url().endsWith('/api/board/tasks/TASK-1/move'),
      );
      await card.dragTo(page.locator('[data-status="in_progress"] .column-scroll'));
      await page.locator('[data-status="in_progress"] [data-task-id="TASK-1"]').waitFor();
      assert.equal((await moved).status(), 200);
      // The card stays in its new column once the hub has answered.
      assert.equal(await page.locator('[data-status="in_progress"] [data-task-id="TASK-1"]').count(), 1);
      assert.match(await taskFile('TASK-1'), /^status: in_progress$/m);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a move the board refuses snaps back and shows the hub’s reason', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/board`);
      // icebox → testing is not a transition the board allows.
      const card = page.locator('[data-status="icebox"] [data-task-id="TASK-3"]');
      await card.waitFor();
      await card.dragTo(page.locator('[data-status="testing"] .column-scroll'));
      const message = page.getByTestId('move-error');
      await message.waitFor();
      const text = (await message.textContent()) ?? '';
      assert.match(text, /TASK-3 stayed where it was: moving it to Testing was refused/);
      assert.match(text, /The hub did not accept that request\./);
      await page.locator('[data-status="icebox"] [data-task-id="TASK-3"]').waitFor();
      assert.equal(await page.locator('[data-status="testing"] [data-task-id="TASK-3"]').count(), 0);
      assert.match(await taskFile('TASK-3'), /^status: icebox$/m);
      await screenshot(page, 'board-move-refused');
      assert.deepEqual(errors.filter(notHttpStatus), []);
    } finally {
      await close();
    }
  });

  test('a task created from the form lands in the icebox and on disk; the drawer edits it', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/board`);
      await page.getByRole('button', { name: 'New task' }).click();
      const form = page.getByRole('form', { name: 'New task' });
      await form.getByLabel('Title').fill('Add a reindex button');
      await form.getByLabel('Kind').selectOption('chore');
      await form.getByLabel('Outcome').fill('The graph page can **reindex** on demand.');
      await form.getByRole('button', { name: 'Create task' }).click();
      const drawer = page.getByTestId('task-drawer');
      await drawer.getByRole('heading', { name: /TASK-4: Add a reindex button/ }).waitFor();
      await page.locator('[data-status="icebox"] [data-task-id="TASK-4"]').waitFor();
      assert.match(await taskFile('TASK-4'), /title: Add a reindex button/);
      await screenshot(page, 'board-drawer');

      await drawer.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('form', { name: 'Edit TASK-4' });
      await edit.getByLabel('Title').fill('Add a reindex button to the graph page');
      await edit.getByRole('button', { name: 'Save' }).click();
      await drawer.getByRole('heading', { name: /TASK-4: Add a reindex button to the graph page/ }).waitFor();
      assert.match(await taskFile('TASK-4'), /title: Add a reindex button to the graph page/);
      await page
        .locator('[data-status="icebox"] [data-task-id="TASK-4"]')
        .getByText('Add a reindex button to the graph page')
        .waitFor();

      await drawer.getByLabel('Add to the work log').fill('Checked with the graph owner.');
      await drawer.getByRole('button', { name: 'Append' }).click();
      await drawer.locator('.drawer-section').getByText('Checked with the graph owner.').first().waitFor();
      assert.match(await taskFile('TASK-4'), /Checked with the graph owner\./);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a change an agent makes over MCP appears on the open board without a reload', async () => {
    const { page, errors, close } = await openPage(browser);
    const client = await connectClient(hub.url);
    try {
      await page.goto(`${hub.url}/board`);
      await page.locator('[data-status="icebox"] [data-task-id="TASK-2"]').waitFor();
      const moved = await client.callTool({
        name: 'cos_task_move',
        arguments: { id: 'TASK-2', to: 'emergency', reason: 'production is down' },
      });
      assert.notEqual(moved.isError, true, JSON.stringify(moved.structuredContent));
      await page.locator('[data-status="emergency"] [data-task-id="TASK-2"]').waitFor({ timeout: 10_000 });
      const created = await client.callTool({
        name: 'cos_task_create',
        arguments: { title: 'Made by an agent' },
      });
      assert.notEqual(created.isError, true, JSON.stringify(created.structuredContent));
      await page.locator('[data-status="icebox"]').getByText('Made by an agent').waitFor({ timeout: 10_000 });
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
      await close();
    }
  });

  test('a person hands a task in progress to another live agent from the drawer (light and dark)', async () => {
    for (const session of ['ana-7c1d2e90', 'ben-4f0a9b31'])
      await api('POST', '/api/hooks/events?client=claude-code', {
        ...fixture('claude-code', 'session-start', hub.dir, { session_id: session }),
      });
    const created = await api('POST', '/api/board/tasks', { title: 'Port the CSV export', priority: 'P2' });
    const id = (created.data as { task: { id: string } }).task.id;
    await api('POST', `/api/board/tasks/${id}/move`, { to: 'in_progress', agent_session: 'ana-7c1d2e90' });
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${hub.url}/board?task=${id}`);
        const drawer = page.getByTestId('task-drawer');
        const form = drawer.getByRole('form', { name: 'Hand off' });
        const to = scheme === 'light' ? 'ben-4f0a9b31' : 'ana-7c1d2e90';
        await form.getByLabel('To').selectOption(to);
        await form.getByRole('textbox').fill(`Exporter half done; the ${scheme} pass takes the header row.`);
        await screenshot(page, `board-handoff-${scheme}`);
        await form.getByRole('button', { name: 'Hand off' }).click();
        await drawer.getByText(`handed off by a person to ${to}`).first().waitFor();
        await drawer.locator('dd', { hasText: to }).first().waitFor();
        assert.match(await taskFile(id), new RegExp(`agent_session: ${to}`));
        await drawer.getByText(`handed off to ${to}`).first().waitFor();
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    }
  });

  test('disabling the tasks module makes the board say so, and its tools answer module_disabled', async () => {
    await api('PATCH', '/api/settings/modules/tasks', { enabled: false });
    const { page, close } = await openPage(browser);
    try {
      const res = await fetch(`${hub.url}/api/board/list`);
      assert.equal(res.status, 403);
      const body: unknown = await res.json();
      assert.deepEqual((body as { error: { category: string } }).error.category, 'module_disabled');
      await page.goto(`${hub.url}/board`);
      await page.locator('[data-module-disabled="tasks"]').waitFor();
    } finally {
      await close();
      await api('PATCH', '/api/settings/modules/tasks', { enabled: true });
    }
  });
});
