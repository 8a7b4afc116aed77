// What agents cost, in Chromium against the real hub: two simulated Claude Code agents (recorded hook
// payloads naming transcripts in a temporary CLAUDE_CONFIG_DIR) claim tasks and spend tokens; the board's
// cards show each task's cost and mark the one over board.json's budget in words, live as usage arrives;
// the drawer splits a task's cost by model and warns; Activity shows each agent's cost; Flow shows cost
// per week, per kind and per model, the median and p85 per completed task and the tasks over budget.
// Screenshots in light and dark.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { fixture } from '../support/hooks.ts';
import { startTestHub, type TestHub } from '../support/hub.ts';
import { type ClaudeUsage, claudeLine } from '../support/transcripts.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

let hub: TestHub;
let browser: Browser;
let home: string;
const ONE = 'a11ce000-0000-4000-8000-000000000001';
const TWO = 'b0b00000-0000-4000-8000-000000000002';
const files: Record<string, string> = {};
let n = 0;

async function hook(session: string, name: string): Promise<void> {
  const res = await fetch(`${hub.url}/api/hooks/events?client=claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      fixture('claude-code', name, hub.dir, { session_id: session, transcript_path: files[session] }),
    ),
  });
  assert.equal(res.status, 200);
}

async function rest(path: string, body: unknown): Promise<{ task?: { id: string } }> {
  const res = await fetch(`${hub.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { data: { task?: { id: string } } }).data;
}

/** One model response in the agent's transcript, then its Stop hook (the hub reads on after answering). */
async function spend(session: string, usage: ClaudeUsage): Promise<void> {
  await new Promise((r) => setTimeout(r, 5));
  appendFileSync(
    files[session]!,
    claudeLine({ id: `msg_${++n}`, at: new Date().toISOString(), usage, session }),
  );
  await hook(session, 'stop');
  await hub.hub.services.costs.idle();
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  home = mkdtempSync(join(tmpdir(), 'cos-costs-e2e-'));
  hub = await startTestHub({ env: { COS_RATE_LIMIT_RPS: '0', HOME: home } });
  await hub.hub.services.board.start();
  await hub.listen();
  mkdirSync(hub.config.stateDir, { recursive: true });
  // A fixed price table, so the page's figures are known: $3 input, $15 output per million.
  writeFileSync(
    join(hub.config.stateDir, 'prices.json'),
    JSON.stringify({
      models: { 'claude-sonnet-4-5': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 } },
    }),
  );
  writeFileSync(join(hub.config.stateDir, 'board.json'), JSON.stringify({ budget: { task_usd: 0.1 } }));
  const project = join(home, '.claude', 'projects', '-repo');
  mkdirSync(project, { recursive: true });
  for (const s of [ONE, TWO]) {
    files[s] = join(project, `${s}.jsonl`);
    writeFileSync(files[s], '');
    await hook(s, 'session-start');
  }
  await rest('/api/board/tasks', {
    title: 'Move the parser',
    kind: 'refactor',
    labels: ['ready'],
    priority: 'P1',
  });
  await rest('/api/board/tasks', { title: 'Fix CRLF tests', kind: 'bug', labels: ['ready'], priority: 'P2' });
  assert.equal((await rest('/api/board/claim-next', { agent_session: ONE })).task?.id, 'TASK-1');
  assert.equal((await rest('/api/board/claim-next', { agent_session: TWO })).task?.id, 'TASK-2');
  // TASK-1: 10k in, 10k out = $0.03 + $0.15 = $0.18, over the $0.10 budget.
  await spend(ONE, { input: 10_000, output: 10_000 });
  // TASK-2: 5k in, 3k out = $0.015 + $0.045 = $0.06; completed.
  await spend(TWO, { input: 5000, output: 3000 });
  await new Promise((r) => setTimeout(r, 5));
  await rest('/api/board/tasks/TASK-2/move', { to: 'complete' });
});

after(async () => {
  await browser?.close();
  await hub?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('cost views', () => {
  test('the board shows each task’s cost, marks the one over budget, and follows new usage live', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/board?archive=1`);
      const one = page.locator('[data-task-id="TASK-1"]');
      await one.getByTestId('cost').getByText('$0.18').waitFor();
      assert.match((await one.getByTestId('cost').textContent()) ?? '', /over budget/);
      const two = page.locator('[data-task-id="TASK-2"]');
      await two.getByTestId('cost').getByText('$0.06').waitFor();
      assert.doesNotMatch((await two.getByTestId('cost').textContent()) ?? '', /over budget/);

      // New usage on TASK-1 reaches its card without a reload: +$0.15 (10k out).
      await spend(ONE, { input: 0, output: 10_000 });
      await one.getByTestId('cost').getByText('$0.33').waitFor({ timeout: 10_000 });

      await one.getByRole('button', { name: 'Move the parser' }).click();
      const drawer = page.getByTestId('task-drawer');
      const cost = drawer.getByTestId('task-cost');
      await cost.getByTestId('task-cost-total').getByText('$0.33').waitFor();
      await cost
        .getByTestId('budget-warning')
        .getByText(/passed \$0\.10/)
        .waitFor();
      await cost.getByRole('table', { name: 'Model' }).getByText('claude-sonnet-4-5-20250929').waitFor();
      await cost.scrollIntoViewIfNeeded();
      await settle(page);
      await screenshot(page, 'board-costs-light');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('Activity shows what each agent cost (dark)', async () => {
    const { page, errors, close } = await openPage(browser, { colorScheme: 'dark' });
    try {
      await page.goto(`${hub.url}/activity`);
      await page.locator(`tr[data-agent="${ONE}"]`).getByTestId('agent-cost').getByText('$0.33').waitFor();
      await page.locator(`tr[data-agent="${TWO}"]`).getByTestId('agent-cost').getByText('$0.06').waitFor();
      await settle(page);
      await screenshot(page, 'activity-costs-dark');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  for (const scheme of ['light', 'dark'] as const)
    test(`Flow shows cost per week, kind and model, per completed task, and the budget warning (${scheme})`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${hub.url}/flow`);
        await page.getByTestId('cost-window-total').getByText('$0.39 in all.').waitFor();
        const perTask = page.getByTestId('cost-per-task');
        await perTask.getByText('$0.06').first().waitFor();
        const warning = page.getByTestId('flow-budget-warning');
        await warning.getByText(/One task passed the budget of \$0\.10/).waitFor();
        assert.equal(await warning.getByRole('link', { name: 'TASK-1' }).count(), 1);
        const kinds = page.getByRole('table', { name: 'Kind' });
        await kinds.locator('tr[data-cost-key="refactor"]').getByText('$0.33').waitFor();
        await kinds.locator('tr[data-cost-key="bug"]').getByText('$0.06').waitFor();
        await page.getByRole('table', { name: 'Model' }).getByText('$0.39').waitFor();
        await page.getByRole('region', { name: 'Cost per week' }).scrollIntoViewIfNeeded();
        await settle(page);
        await screenshot(page, `flow-costs-${scheme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
});
