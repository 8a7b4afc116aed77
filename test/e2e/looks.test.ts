// The SPA's defects found by looking at it, each held in light and in dark: graph labels readable on the
// canvas, one colour per node kind in every view with a legend naming every kind drawn, the node panel
// titled by the node's name, placeholders that fit their box, counts in the right number, and the task
// drawer beside the board rather than over "New task" and the right-hand columns. Screenshots of each
// state are kept under test-results/screenshots/looks-*.png.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestHub, type TestHub } from '../support/hub.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

let hub: TestHub;
let browser: Browser;
const SCHEMES = ['light', 'dark'] as const;
const SQUARE = 'code:class:src/shapes.ts::Square';

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
  const dir = hub.dir;
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'docs/tasks'), { recursive: true });
  // Every kind a TypeScript file and a README make: class, interface, type, enum, function, method,
  // variable, constant, file, folder, doc_file, heading, external.
  writeFileSync(
    join(dir, 'src/shapes.ts'),
    [
      "import { readFileSync } from 'node:fs';",
      'export const MAX_SIDES = 12;',
      'export let counter = 0;',
      'export type Point = { x: number; y: number };',
      'export interface Shape { area(): number }',
      'export enum Colour { Red, Green }',
      'export class Square implements Shape {',
      '  constructor(private side: number) {}',
      '  area(): number { counter++; return this.side * this.side; }',
      '}',
      "export function load(path: string): Square { return new Square(Number(readFileSync(path, 'utf8'))); }",
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'src/app.ts'),
    "import { load, Square } from './shapes';\nexport function main(): number { return load('x').area() + new Square(2).area(); }\n",
  );
  writeFileSync(join(dir, 'README.md'), '# Demo\n\n## Usage\n\nSee [shapes](src/shapes.ts).\n');
  // One task: the board's count says "1 task".
  writeFileSync(
    join(dir, 'docs/tasks/TASK-1-only.md'),
    '---\nid: TASK-1\ntitle: The only task\nstatus: icebox\nkind: feature\npriority: P2\nversion: 1\n---\n',
  );
  await hub.hub.start();
  await hub.listen();
  await until('the graph index', async () => {
    const res = await fetch(`${hub.url}/api/graph/search?query=Square`);
    return res.ok && (await res.text()).includes(SQUARE);
  });
  // One real doctor finding (a file importing itself, an edge no extraction made: reindexing keeps it), for "1 issue".
  hub.hub.db
    .prepare(
      "INSERT INTO graph_edges (source_id, target_id, edge_type, confidence, extractor) SELECT id, id, 'imports', 1, 'test/looks' FROM graph_nodes WHERE uid = ?",
    )
    .run('code:file:src/app.ts');
});

after(async () => {
  await browser?.close();
  await hub?.close();
});

/** WCAG contrast ratio of two `rgb(…)` / `#rrggbb` colours. */
function contrast(a: [number, number, number], b: [number, number, number]): number {
  const lum = ([r, g, bl]: [number, number, number]) => {
    const lin = (c: number) => {
      const v = c / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(bl);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

function rgbOf(css: string): [number, number, number] {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(css);
  assert.ok(m, `a colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** The legend's kinds with their swatch colours, in its order. */
async function legend(page: Page): Promise<[string, string][]> {
  // Browser code as text: the tests compile without the DOM's types.
  return page.evaluate(`[...document.querySelectorAll('ul.legend li')].map((li) => [
    li.dataset.kind ?? li.textContent.trim(),
    getComputedStyle(li.querySelector('.swatch')).backgroundColor,
  ])`) as Promise<[string, string][]>;
}

/** The kinds of the nodes the export the page draws has, asked of the hub the same way the page does. */
async function exportKinds(query: string): Promise<Set<string>> {
  const res = await fetch(`${hub.url}/api/graph/export?format=json&max_nodes=200${query}`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { data: { nodes: { kind: string }[] } };
  return new Set(body.data.nodes.map((n) => n.kind));
}

describe('Graph page, light and dark', () => {
  for (const scheme of SCHEMES) {
    test(`${scheme}: the canvas's labels are readable on its background`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${hub.url}/graph`);
        await page.locator('[data-testid="graph-canvas"] canvas.sigma-labels').waitFor();
        // The labels layer holds only text: its opaque pixels are the labels' ink.
        const measure = () =>
          page.evaluate(`(() => {
            const canvas = document.querySelector('[data-testid="graph-canvas"] canvas.sigma-labels');
            const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
            let n = 0;
            const sum = [0, 0, 0];
            for (let i = 0; i < data.length; i += 4) {
              if (data[i + 3] < 250) continue;
              n++;
              sum[0] += data[i];
              sum[1] += data[i + 1];
              sum[2] += data[i + 2];
            }
            const background = getComputedStyle(document.querySelector('[data-testid="graph-canvas"]')).backgroundColor;
            return { n, ink: sum.map((s) => Math.round(s / Math.max(1, n))), background };
          })()`) as Promise<{ n: number; ink: number[]; background: string }>;
        let seen = await measure();
        await until('labels on the canvas', async () => {
          seen = await measure();
          return seen.n > 50;
        });
        const ratio = contrast(seen.ink as [number, number, number], rgbOf(seen.background));
        await screenshot(page, `looks-graph-${scheme}`);
        assert.ok(
          ratio >= 4.5,
          `label ink rgb(${seen.ink.join(',')}) on ${seen.background}: contrast ${ratio.toFixed(2)} < 4.5`,
        );
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });

    test(`${scheme}: one colour per kind, the same in every view, and the legend names every kind drawn`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        const seen = new Map<string, string>();
        for (const [path, query] of [
          ['/graph?mode=containment', '&mode=containment'],
          ['/graph?mode=dependencies', '&mode=dependencies'],
          [`/graph?uid=${encodeURIComponent(SQUARE)}`, `&root=${encodeURIComponent(SQUARE)}`],
        ] as const) {
          await page.goto(`${hub.url}${path}`);
          await page.locator('ul.legend li').first().waitFor();
          const entries = await legend(page);
          const kinds = entries.map(([k]) => k);
          assert.deepEqual(
            [...kinds].sort(),
            [...(await exportKinds(query))].sort(),
            `${path}: the legend lists each kind on the canvas once`,
          );
          const colours = entries.map(([, c]) => c);
          assert.equal(
            new Set(colours).size,
            colours.length,
            `${path}: two kinds share a colour: ${entries}`,
          );
          for (const [kind, colour] of entries) {
            assert.equal(seen.get(kind) ?? colour, colour, `${kind} changes colour between views (${path})`);
            seen.set(kind, colour);
          }
          await screenshot(
            page,
            `looks-legend-${scheme}-${path.includes('uid') ? 'node' : path.split('=')[1]}`,
          );
        }
        // The kinds that were once given one colour are apart now.
        for (const [a, b] of [
          ['class', 'type'],
          ['constant', 'variable'],
        ] as const) {
          assert.ok(seen.has(a) && seen.has(b), `the views drew ${a} and ${b}`);
          assert.notEqual(seen.get(a), seen.get(b), `${a} and ${b} have one colour`);
        }
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });

    test(`${scheme}: the node panel is titled by the node's name and kind, not its uid`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${hub.url}/graph?uid=${encodeURIComponent(SQUARE)}`);
        const panel = page.getByTestId('node-panel');
        await panel.getByText('src/shapes.ts:7', { exact: true }).first().waitFor();
        const title = (await page.locator('#node-title').textContent())?.trim() ?? '';
        assert.match(title, /^Square\s+class$/);
        assert.doesNotMatch(title, /code:/);
        // The uid stays on the panel, smaller, for copying.
        await panel.locator('.node-uid', { hasText: SQUARE }).waitFor();
        await screenshot(page, `looks-node-panel-${scheme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });

    test(`${scheme}: one doctor issue reads "1 issue"`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${hub.url}/graph`);
        const badge = page.getByTestId('doctor-badge');
        await badge.waitFor();
        assert.equal((await badge.textContent())?.trim(), '! 1 issue');
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }
});

/** Inputs whose placeholder is wider than the box it is shown in (measured in the input's own font). */
async function cutPlaceholders(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const ctx = document.createElement('canvas').getContext('2d');
    const cut = [];
    for (const input of document.querySelectorAll('input[placeholder]')) {
      if (input.offsetParent === null) continue;
      const style = getComputedStyle(input);
      ctx.font = style.fontStyle + ' ' + style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
      const text = ctx.measureText(input.placeholder).width;
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (text > room) cut.push('"' + input.placeholder + '" needs ' + Math.ceil(text) + 'px, has ' + Math.floor(room) + 'px');
    }
    return cut;
  })()`) as Promise<string[]>;
}

describe('Copy, light and dark', () => {
  for (const scheme of SCHEMES) {
    test(`${scheme}: every placeholder fits its box on every page`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        for (const path of ['/board', '/graph', '/search', '/activity', '/settings']) {
          await page.goto(`${hub.url}${path}`);
          await settle(page);
          assert.deepEqual(await cutPlaceholders(page), [], `${path}: a placeholder is cut off`);
        }
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });

    test(`${scheme}: a board of one task says "1 task"`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${hub.url}/board?kind=feature`);
        await page.locator('[data-task-id="TASK-1"]').waitFor();
        assert.equal((await page.getByTestId('board-total').textContent())?.trim(), '1 task');
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }
});

describe('The task drawer, light and dark', () => {
  for (const scheme of SCHEMES) {
    test(`${scheme}: after creating a task, "New task" and the new card stay visible beside the drawer`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${hub.url}/board`);
        await settle(page);
        await page.getByRole('button', { name: 'New task' }).click();
        const form = page.getByRole('form', { name: 'New task' });
        const title = `Drawn beside the drawer (${scheme})`;
        await form.getByLabel('Title').fill(title);
        // Not a feature: the "1 task" check counts the board's features.
        await form.getByLabel('Kind').selectOption('chore');
        await form.getByRole('button', { name: 'Create task' }).click();
        const drawer = page.getByTestId('task-drawer');
        await drawer.getByRole('heading', { name: new RegExp(title.replace(/[()]/g, '\\$&')) }).waitFor();
        const card = page.locator('[data-status="icebox"] [data-task-id]', { hasText: title });
        await card.waitFor();
        await page.waitForTimeout(300);
        const drawerBox = (await drawer.boundingBox())!;
        const viewport = page.viewportSize()!;
        const newTask = (await page.getByRole('button', { name: 'New task' }).boundingBox())!;
        assert.ok(
          newTask.x + newTask.width <= drawerBox.x,
          `"New task" (right edge ${newTask.x + newTask.width}) is under the drawer (left edge ${drawerBox.x})`,
        );
        const cardBox = (await card.boundingBox())!;
        assert.ok(
          cardBox.x >= 0 && cardBox.x + cardBox.width <= drawerBox.x + 1,
          `the new card (x ${cardBox.x}–${cardBox.x + cardBox.width}) is not in the board's visible part (0–${drawerBox.x})`,
        );
        assert.ok(cardBox.y + cardBox.height <= viewport.height, 'the new card is on screen');
        // What the card says is what is drawn: the element at the card's centre is the card.
        const hit = (await page.evaluate(
          `document.elementFromPoint(${cardBox.x + cardBox.width / 2}, ${cardBox.y + cardBox.height / 2})?.closest('[data-task-id]')?.textContent`,
        )) as string | undefined;
        assert.match(hit ?? '', new RegExp(title.replace(/[()]/g, '\\$&')));
        await screenshot(page, `looks-board-drawer-${scheme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }
});
