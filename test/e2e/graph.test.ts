// The Graph page against the real hub on a small TypeScript repository the hub indexes: a searched symbol
// is drawn with its neighbourhood, a node's panels answer, and the doctor and index state show.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

let hub: TestHub;
let browser: Browser;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub();
  mkdirSync(join(hub.dir, 'src'), { recursive: true });
  writeFileSync(
    join(hub.dir, 'src', 'math.ts'),
    'export function addNumbers(a: number, b: number): number {\n  return a + b;\n}\n\nexport function double(a: number): number {\n  return addNumbers(a, a);\n}\n',
  );
  writeFileSync(
    join(hub.dir, 'src', 'app.ts'),
    "import { addNumbers, double } from './math';\n\nexport function main(): number {\n  return addNumbers(1, double(2));\n}\n",
  );
  // As `cos serve` does: start the background services, among them the graph indexer.
  await hub.hub.start();
  await hub.listen();
  await until('the graph index', async () => {
    const res = await fetch(`${hub.url}/api/graph/search?query=addNumbers`);
    return res.ok && (await res.text()).includes('code:function:src/math.ts::addNumbers');
  });
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

describe('Graph', () => {
  test('a searched symbol is drawn with its neighbourhood and its panels answer', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/graph`);
      await page.getByRole('searchbox', { name: 'Search symbols' }).fill('addNumbers');
      await page.getByRole('searchbox', { name: 'Search symbols' }).press('Enter');
      await page.getByTestId('graph-results').getByRole('button', { name: 'addNumbers' }).click();
      await page.getByTestId('graph-summary').waitFor();
      const summary = (await page.getByTestId('graph-summary').textContent()) ?? '';
      const drawn = Number((/([\d,]+) nodes?\b/.exec(summary)?.[1] ?? '0').replaceAll(',', ''));
      assert.ok(drawn >= 2, `the export around addNumbers has nodes: ${summary}`);
      // sigma draws into canvases inside the graph view.
      await page.locator('[data-testid="graph-canvas"] canvas').first().waitFor();
      assert.ok((await page.locator('[data-testid="graph-canvas"] canvas').count()) > 0);

      const panel = page.getByTestId('node-panel');
      await panel.getByText('src/math.ts', { exact: false }).first().waitFor();
      await panel.getByRole('tab', { name: 'References' }).click();
      await panel
        .getByText(/references/)
        .first()
        .waitFor();
      await panel.getByRole('tab', { name: 'Impact' }).click();
      await panel.getByText(/impacted across/).waitFor();
      await panel.getByRole('tab', { name: 'Rename plan' }).click();
      await panel.getByLabel('New name').fill('sumNumbers');
      await panel.getByRole('button', { name: 'Plan' }).click();
      await panel.getByText(/addNumbers → sumNumbers/).waitFor();
      await page.getByTestId('doctor-badge').waitFor();
      // The containment tree lists the repository's files and symbols; an entry selects its node.
      await page.locator('summary', { hasText: 'Containment tree' }).click();
      const tree = page.getByTestId('containment-tree');
      await tree
        .getByRole('button', { name: /math\.ts/ })
        .first()
        .waitFor();
      await settle(page);
      await screenshot(page, 'graph-explorer');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('while the stage is dragged only the nodes are drawn, and the release brings the rest back', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${hub.url}/graph?budget=200`);
      await page.getByTestId('graph-summary').waitFor();
      await page.locator('[data-testid="graph-canvas"] canvas').first().waitFor();
      // After the layout (3 s): from then on, only the camera and the canvas itself ask for frames.
      await page.waitForTimeout(3500);
      const layers = `Object.fromEntries([...document.querySelectorAll('[data-testid="graph-canvas"] canvas')]
        .map((c) => [c.className.replace('sigma-', ''), c.style.visibility !== 'hidden']))`;
      const box = await page.getByTestId('graph-canvas').boundingBox();
      assert.ok(box, 'the canvas is on the page');
      const x = box.x + box.width / 2;
      const y = box.y + box.height / 2;
      await page.mouse.move(x, y);
      await page.mouse.down();
      for (let i = 1; i <= 10; i++) await page.mouse.move(x + i * 8, y + i * 4);
      const dragging: unknown = await page.evaluate(layers);
      assert.deepEqual(dragging, {
        edges: false,
        edgeLabels: false,
        nodes: true,
        labels: false,
        hovers: false,
        hoverNodes: false,
        mouse: true,
      });
      // Held still before the release: no camera move follows, the canvas asks for the frame itself.
      await page.waitForTimeout(300);
      await page.mouse.up();
      await page.waitForFunction(`Object.values(${layers}).every(Boolean)`, undefined, { timeout: 5000 });
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the export view draws the whole repository within each node budget', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      for (const budget of [200, 800, 2000]) {
        await page.goto(`${hub.url}/graph?budget=${budget}`);
        await page.getByTestId('graph-summary').waitFor();
        const summary = (await page.getByTestId('graph-summary').textContent()) ?? '';
        const n = Number((/([\d,]+) nodes?\b/.exec(summary)?.[1] ?? '0').replaceAll(',', ''));
        assert.ok(n > 0 && n <= budget, `${summary} within ${budget}`);
      }
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
