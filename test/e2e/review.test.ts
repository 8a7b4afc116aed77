// The Review and Flow pages against a real hub serving a real git repository made here: a task's
// branch reviewed with its diff (highlighted, unified and side by side), changed symbols with what they
// break, the tests to run and the picture on the graph canvas; the drawer's commits open their diff;
// screenshots in the light and dark themes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Indexer } from '../../server/graph/indexer.ts';
import { startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

/**
 * Defects found by looking at these pages, in either theme: a text box without a type attribute kept
 * the browser's own grey in the dark theme, and cards stacked below a grid touched it.
 */
async function assertLooks(page: Page): Promise<void> {
  const looks = (await page.evaluate(`(() => {
    const surface = getComputedStyle(document.querySelector('.card')).backgroundColor;
    const inputs = [...document.querySelectorAll('main input:not([type="checkbox"]):not([type="radio"])')]
      .map((i) => getComputedStyle(i).backgroundColor);
    const gaps = [];
    for (const el of document.querySelectorAll('.grid + .card, .card + .grid, .grid + .grid'))
      gaps.push(el.getBoundingClientRect().top - el.previousElementSibling.getBoundingClientRect().bottom);
    return { surface, inputs, gaps };
  })()`)) as { surface: string; inputs: string[]; gaps: number[] };
  for (const bg of looks.inputs) assert.equal(bg, looks.surface, 'a text box has the surface colour');
  assert.ok(looks.gaps.length > 0, 'the page stacks cards below grids');
  for (const gap of looks.gaps) assert.ok(gap >= 12, `cards stacked ${gap} px apart`);
}

let hub: TestHub;
let browser: Browser;
let commitSha = '';

const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: hub.dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    },
  }).trim();
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(hub.dir, path)), { recursive: true });
  writeFileSync(join(hub.dir, path), text);
};

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub();
  mkdirSync(hub.config.tasksDir, { recursive: true });
  await hub.listen();
  const res = await fetch(`${hub.url}/api/board/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Make add commutative', kind: 'feature', priority: 'P1' }),
  });
  assert.equal(res.status, 200);
  git('init', '-q', '-b', 'main');
  write('.gitignore', '.cos/\n');
  write(
    'src/lib/math.ts',
    '/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n',
  );
  write(
    'src/app.ts',
    "import { add } from './lib/math.ts';\n\nexport function main(): number {\n  return add(1, 2);\n}\n",
  );
  write(
    'src/lib/math.test.ts',
    "import { add } from './math.ts';\n\nexport function checkAdd(): boolean {\n  return add(1, 1) === 2;\n}\n",
  );
  git('add', '-A');
  git('commit', '-qm', 'Initial layout');
  git('checkout', '-q', '-b', 'task/TASK-1-commutative-add');
  write(
    'src/lib/math.ts',
    '/** Adds two numbers, in either order. */\nexport function add(a: number, b: number): number {\n  const sum = b + a; // "commutative"\n  return sum;\n}\n',
  );
  git('commit', '-qam', 'add takes its operands in either order\n\nTask: TASK-1');
  commitSha = git('rev-parse', 'HEAD');
  git('checkout', '-q', 'main');
  await new Indexer({ repo: hub.dir, db: hub.hub.db }).run({});
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

describe('Review', () => {
  for (const theme of ['light', 'dark'] as const) {
    test(`a task's branch: risk, changed symbols, tests to run and the highlighted diff (${theme})`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: theme });
      try {
        await page.goto(`${hub.url}/review?task=TASK-1`);
        await page.getByRole('heading', { level: 1, name: 'Review' }).waitFor();
        await page.getByRole('region', { name: 'Changed symbols' }).waitFor();
        await settle(page);
        const symbols = page.getByRole('region', { name: 'Changed symbols' });
        assert.match(
          (await symbols.textContent()) ?? '',
          /add.*function · src\/lib\/math\.ts:2.*main \(src\/app\.ts\)/s,
        );
        assert.match(
          (await page.getByRole('region', { name: 'Tests to run' }).textContent()) ?? '',
          /src\/lib\/math\.test\.ts/,
        );
        const summary = (await page.getByRole('region', { name: 'Summary' }).textContent()) ?? '';
        assert.match(summary, /medium/);
        // Counts in the right number, in the page's copy and in the hub's risk reasons.
        assert.match(summary, /1 file, 2 changed symbols, .*1 test file to run, 0 tasks naming/);
        assert.doesNotMatch(summary, /\(s\)/);
        assert.match(summary, /names the task in a trailer/);
        await assertLooks(page);
        const diff = page.getByRole('region', { name: 'Diff of src/lib/math.ts' });
        assert.equal(await diff.locator('tr.diff-add').count(), 3);
        assert.equal(await diff.locator('tr.diff-del').count(), 2);
        // Prism tokens: the keyword and the string are coloured as code, not plain text.
        assert.ok((await diff.locator('.tok-keyword').count()) > 0);
        assert.ok((await diff.locator('.tok-comment').count()) > 0);
        await screenshot(page, `review-task-${theme}`);
        await page.getByRole('button', { name: 'Side by side' }).click();
        await diff.locator('table.diff-split').first().waitFor();
        await screenshot(page, `review-split-${theme}`);
        await page.getByRole('button', { name: /Show the changed symbols/ }).click();
        await page.getByTestId('graph-canvas').waitFor();
        // The picture has the graph page's legend: every kind drawn, in its one colour.
        const picture = page.getByRole('region', { name: 'Picture' });
        assert.deepEqual(
          await picture.getByRole('list', { name: 'Node kinds' }).locator('li').allTextContents(),
          [' file', ' function'],
        );
        await page.waitForTimeout(1800);
        await page.getByRole('region', { name: 'Picture' }).scrollIntoViewIfNeeded();
        await screenshot(page, `review-graph-${theme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }

  test("the drawer lists the task's commits; one opens its diff, and the drawer links the review", async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/board?task=TASK-1`);
      const commit = page.locator('.history-commit');
      await commit.waitFor();
      assert.match((await commit.textContent()) ?? '', /add takes its operands in either order/);
      await screenshot(page, 'review-drawer-commits');
      await commit.getByRole('link').click();
      await page.waitForURL(`**/review?commit=${commitSha}`);
      await page.getByRole('region', { name: 'Diff of src/lib/math.ts' }).waitFor();
      assert.match((await page.textContent('body')) ?? '', new RegExp(`commit ${commitSha.slice(0, 12)}`));
      await page.goto(`${hub.url}/board?task=TASK-1`);
      await page.getByRole('link', { name: "Review this task's change" }).click();
      await page.waitForURL('**/review?task=TASK-1');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the working tree, reached from the Activity page, shows an edit not yet committed', async () => {
    write(
      'src/app.ts',
      "import { add } from './lib/math.ts';\n\nexport function main(): number {\n  return add(2, 2);\n}\n",
    );
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/activity`);
      await page.getByRole('link', { name: 'Review the working tree' }).click();
      await page.waitForURL('**/review');
      const diff = page.getByRole('region', { name: 'Diff of src/app.ts' });
      await diff.waitFor();
      assert.match((await diff.textContent()) ?? '', /add\(2, 2\)/);
      assert.match((await page.textContent('body')) ?? '', /the working tree against HEAD/);
      assert.deepEqual(errors, []);
    } finally {
      git('checkout', '-q', '--', '.');
      await close();
    }
  });
});

describe('Quality gates in the drawer', () => {
  test('a move the definition of ready refuses shows what is missing', async () => {
    writeFileSync(join(hub.config.stateDir, 'board.json'), JSON.stringify({ gates: { ready: true } }));
    const res = await fetch(`${hub.url}/api/board/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Vague idea', kind: 'spike', priority: 'P3' }),
    });
    assert.equal(res.status, 200);
    const { page, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/board?task=TASK-2`);
      await page.getByLabel('Move to').selectOption('in_progress');
      const notice = page.getByText(/definition of ready/);
      await notice.waitFor();
      assert.match((await notice.textContent()) ?? '', /needs an Outcome and Acceptance criteria/);
      await screenshot(page, 'gates-drawer-refusal');
    } finally {
      writeFileSync(join(hub.config.stateDir, 'board.json'), '{}');
      await close();
    }
  });
});

describe('Flow', () => {
  before(async () => {
    for (const status of ['in_progress', 'complete']) {
      const res = await fetch(`${hub.url}/api/board/tasks/TASK-1/move`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: status, agent_session: 'claude-e2e' }),
      });
      assert.equal(res.status, 200, await res.text());
    }
  });
  for (const theme of ['light', 'dark'] as const) {
    test(`the daily and the retro with their charts (${theme})`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: theme });
      try {
        await page.goto(`${hub.url}/flow`);
        await page.getByRole('heading', { level: 1, name: 'Flow' }).waitFor();
        await page.getByRole('img', { name: /Cumulative flow/ }).waitFor();
        await settle(page);
        assert.equal(await page.getByRole('img', { name: 'Tasks completed per week' }).count(), 1);
        assert.equal(await page.getByRole('img', { name: /Cycle time of each completed task/ }).count(), 1);
        assert.match(
          (await page.getByRole('region', { name: 'Completed', exact: true }).textContent()) ?? '',
          /TASK-1 Make add commutative.*by claude-e2e/,
        );
        assert.equal(await page.locator('.chart-dot').count(), 1);
        // Counts of tasks have whole ticks (no "0.5" task), and every dot lies wholly inside its chart.
        for (const name of ['Tasks completed per week', /Cumulative flow/]) {
          const ticks = await page.getByRole('img', { name }).locator('.chart-axis text').allTextContents();
          assert.ok(ticks.length >= 2, `${name}: ticks ${ticks.join(', ')}`);
          for (const tick of ticks) assert.match(tick, /^\d+$/, `${name} has a tick "${tick}"`);
        }
        const outside = (await page.evaluate(`[...document.querySelectorAll('.chart-dot')].filter((dot) => {
          const svg = dot.ownerSVGElement.getBoundingClientRect();
          const box = dot.getBoundingClientRect();
          return box.left < svg.left || box.right > svg.right || box.top < svg.top || box.bottom > svg.bottom;
        }).length`)) as number;
        assert.equal(outside, 0, 'a cycle-time dot is cut by the edge of its chart');
        await assertLooks(page);
        // The charts' words are readable: at least 10 px on screen in the narrowest card.
        const smallest = (await page.evaluate(
          `Math.min(...[...document.querySelectorAll('.chart text')].map((t) => t.getBoundingClientRect().height))`,
        )) as number;
        assert.ok(smallest >= 10, `the charts' smallest text is ${smallest} px tall`);
        await screenshot(page, `flow-${theme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }
});
