// The Map page against the real hub on a repository with two groups of code (billing in TypeScript, auth
// in Python): the groups drawn as clusters and listed with their central symbols, a symbol opening on
// the Graph page, the API surface table filtered (the routes of an Express file the graph indexed) and its
// empty state, in light and in dark.
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

function write(path: string, text: string): void {
  mkdirSync(join(hub.dir, path, '..'), { recursive: true });
  writeFileSync(join(hub.dir, path), text);
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  hub = await startTestHub();
  const billing = ['invoice', 'ledger', 'payment', 'refund'];
  billing.forEach((name, i) => {
    const next = billing[(i + 1) % billing.length]!;
    write(
      `src/billing/${name}.ts`,
      `import { ${next}Total } from './${next}';\nexport function ${name}Total(n: number): number {\n  return n > 9 ? n : ${next}Total(n + 1);\n}\n`,
    );
  });
  const auth = ['login', 'session', 'token'];
  write('auth/__init__.py', '');
  auth.forEach((name, i) => {
    const next = auth[(i + 1) % auth.length]!;
    write(
      `auth/${name}.py`,
      `from auth.${next} import ${next}_check\n\ndef ${name}_check(n):\n    return ${next}_check(n)\n`,
    );
  });
  await hub.hub.start();
  await hub.listen();
  await until('the graph index', async () => {
    const res = await fetch(`${hub.url}/api/graph/search?query=invoiceTotal`);
    return res.ok && (await res.text()).includes('code:function:src/billing/invoice.ts::invoiceTotal');
  });
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

describe('Map, light and dark', () => {
  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: the groups are drawn and listed; a central symbol opens on the Graph page`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${hub.url}/map`);
        await page.getByRole('heading', { name: 'Map', level: 1 }).waitFor();
        const summary = page.getByTestId('map-summary');
        await summary.waitFor();
        assert.match((await summary.textContent()) ?? '', /\d+ groups? of files/);
        await page.locator('[data-testid="map-communities"] canvas').first().waitFor();
        const list = page.getByTestId('map-group-list');
        await list.getByRole('button', { name: /^src\/billing · / }).waitFor();
        await list.getByRole('button', { name: /^auth · / }).waitFor();
        // The API surface is empty here: it says so rather than drawing an empty table.
        await page.getByTestId('map-api').getByText('No HTTP routes are known').waitFor();
        await page.getByTestId('map-top').getByRole('link').first().waitFor();
        await list.getByRole('button', { name: /^auth · / }).click();
        await page.getByTestId('map-group-detail').getByRole('link').first().waitFor();
        await page.waitForTimeout(2200); // the layout settles (2 s)
        await settle(page);
        await screenshot(page, `map-${scheme}`);
        await list
          .getByRole('link', { name: /invoiceTotal|ledgerTotal|paymentTotal|refundTotal/ })
          .first()
          .click();
        await page.waitForURL(/\/graph\?uid=code%3Afunction%3Asrc%2Fbilling%2F/);
        await page.getByTestId('graph-summary').waitFor();
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }

  test('the API surface table lists the routes the graph records and filters them', async () => {
    // An Express router beside the indexed files: the surface recognisers make its routes, the next
    // pass a new generation.
    write(
      'src/billing/routes.ts',
      "import express from 'express';\nimport { invoiceTotal } from './invoice';\nimport { ledgerTotal } from './ledger';\n\nconst app = express();\napp.get('/invoices/:id', invoiceTotal);\napp.post('/invoices', invoiceTotal);\napp.delete('/ledger/{entry}', ledgerTotal);\n",
    );
    await hub.hub.services.graph.reindex({ paths: ['src/billing/routes.ts'] });
    const { page, errors, close } = await openPage(browser, { colorScheme: 'dark' });
    try {
      await page.goto(`${hub.url}/map`);
      const api = page.getByTestId('map-api');
      await api.getByRole('table').waitFor();
      assert.equal(await api.getByRole('row').count(), 4);
      await api.getByText('3 routes').waitFor();
      await api.getByRole('searchbox', { name: 'Filter routes' }).fill('ledger');
      await api.getByText('1 of 3 routes').waitFor();
      assert.equal(await api.getByRole('row').count(), 2);
      assert.match(
        (await api.getByRole('row').nth(1).textContent()) ?? '',
        /DELETE\/ledger\/\{entry\}ledgerTotalsrc\/billing\/routes\.ts/,
      );
      // The handler opens on the Graph page's terms (its uid); another kind is asked of the tool.
      assert.match(
        (await api.getByRole('link', { name: 'ledgerTotal' }).getAttribute('href')) ?? '',
        /^\/graph\?uid=/,
      );
      await settle(page);
      await screenshot(page, 'map-api-dark');
      await api.getByLabel('Show').selectOption('cli_command');
      await api.getByText("No CLI commands are known in this repository's graph.").waitFor();
      await api.getByLabel('Show').selectOption('route');
      await api.getByText('3 routes').waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
