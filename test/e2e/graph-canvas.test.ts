// The graph canvas's own WebGL programs (web/src/components/graph-canvas/webgl-programs.ts) in Debian's Chromium,
// on a harness page (web/bench/sigma-programs.html) that draws one graph with sigma's instanced programs
// and with ours: the pictures must be the same, and a node must be found under the pointer.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { type Harness, launchChromium, openPage, SCREENSHOTS, serveHarness } from './browser.ts';

let browser: Browser;
let harness: Harness;

before(async () => {
  browser = await launchChromium();
  harness = await serveHarness('sigma-programs');
});

after(async () => {
  await browser?.close();
  await harness?.close();
});

describe('Graph canvas programs', () => {
  test('draw, in one call per layer, the same pixels as sigma’s instanced programs', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(harness.url);
      await page.waitForFunction('document.body.dataset.drawn !== undefined');
      const theirs = await page.locator('#sigma').screenshot();
      const ours = await page.locator('#flat').screenshot();
      mkdirSync(SCREENSHOTS, { recursive: true });
      writeFileSync(join(SCREENSHOTS, 'graph-programs-sigma.png'), theirs);
      writeFileSync(join(SCREENSHOTS, 'graph-programs-flat.png'), ours);
      // A blank stage would also be "the same": the picture must differ from an empty area of its size.
      const empty = await page.screenshot({ clip: { x: 800, y: 0, width: 400, height: 400 } });
      assert.ok(!ours.equals(empty), 'the stage has a drawing on it');
      assert.ok(
        theirs.equals(ours),
        'sigma’s programs and ours draw different pixels (see graph-programs-*.png in test-results/screenshots)',
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a node drawn by the disc program is found under the pointer (its picking pass)', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(harness.url);
      await page.waitForFunction('document.body.dataset.probe !== undefined');
      const probe: unknown = JSON.parse(String(await page.evaluate('document.body.dataset.probe')));
      const x = probe !== null && typeof probe === 'object' ? Reflect.get(probe, 'x') : undefined;
      const y = probe !== null && typeof probe === 'object' ? Reflect.get(probe, 'y') : undefined;
      assert.ok(typeof x === 'number' && typeof y === 'number', 'the page says where n5 is');
      await page.mouse.move(x - 40, y - 40);
      await page.mouse.move(x, y, { steps: 4 });
      await page.waitForFunction("document.body.dataset.entered === 'n5'", undefined, { timeout: 5000 });
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
