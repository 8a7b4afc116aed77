// The home page and the project switcher in real Chromium, against one hub serving three repositories:
// a card per project with its own counts, the switcher keeping the page while changing project, pages
// inside /p/<slug>/ reading that project's data, and the activity of every project on one list. The
// home page's polls are the page's own: no project records them or counts them as use, so projects left
// alone go idle (after 3 s here) and their cards say they released their caches.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createHub, type Hub } from '../../server/hub.ts';
import { ProjectHubs } from '../../server/projects/hubs.ts';
import { ProjectRegistry } from '../../server/projects/registry.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'cos-e2e-projects-')));
let browser: Browser;
let hub: Hub;
let projects: ProjectHubs;
let app: FastifyInstance;
let url = '';

function repo(word: string, tasks: number): string {
  const dir = join(root, word);
  mkdirSync(join(dir, 'docs/tasks'), { recursive: true });
  for (let i = 1; i <= tasks; i++) {
    writeFileSync(
      join(dir, `docs/tasks/TASK-${i}-${word}.md`),
      `---\nid: TASK-${i}\ntitle: ${word} task ${i}\nstatus: ${i === 1 ? 'in_progress' : 'icebox'}\nkind: feature\npriority: P2\nversion: 1\n---\n`,
    );
  }
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, `src/${word}.ts`), `export function ${word}Fn() { return 1; }\n`);
  return dir;
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  const home = join(root, 'home');
  const registry = new ProjectRegistry(home);
  const alpha = repo('alpha', 3);
  registry.add({ repo: repo('beta', 1), slug: 'beta' });
  registry.add({ repo: repo('gamma', 2), slug: 'gamma' });
  hub = createHub(
    loadConfig(
      { COS_REPO: alpha, COS_PORT: '0', COS_HOME: home, COS_PROJECT_IDLE_MINUTES: '0.05' },
      {},
      root,
    ),
    { logSync: true },
  );
  projects = new ProjectHubs(hub, { registry, open: (c) => createHub(c, { logSync: true }) });
  app = await buildApp(hub, { projects });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  projects.baseUrl = url;
  await hub.start();
  await projects.start();
  for (const p of projects.list()) await p.hub.services.graph?.ready();
  // One call in each project, so the cross-project activity has a row from each.
  for (const prefix of ['', '/p/beta', '/p/gamma']) {
    const res = await fetch(`${url}${prefix}/api/board/tasks/TASK-1`);
    assert.equal(res.status, 200, prefix);
  }
});

after(async () => {
  await browser?.close();
  await app?.close();
  await projects?.close();
  await hub?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('projects', () => {
  for (const theme of ['light', 'dark'] as const) {
    test(`the home page shows a card per project with its own counts (${theme})`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme: theme });
      try {
        await page.goto(`${url}/`);
        await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
        const cards = page.getByTestId('project-card');
        await cards.nth(2).waitFor();
        assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-slug'))), [
          'alpha',
          'beta',
          'gamma',
        ]);
        const tasks = (slug: string) =>
          page.locator(`[data-slug="${slug}"] [data-testid="project-tasks"]`).textContent();
        assert.match((await tasks('alpha')) ?? '', /^3 \(2 icebox, 1 in progress\)/);
        assert.match((await tasks('beta')) ?? '', /^1 \(1 in progress\)/);
        assert.match((await tasks('gamma')) ?? '', /^2 /);
        assert.match(
          (await page.locator('[data-slug="beta"] [data-testid="project-graph"]').textContent()) ?? '',
          /1 file · indexed/,
        );
        assert.match(
          (await page.locator('[data-slug="beta"] .project-mcp code').textContent()) ?? '',
          /\/p\/beta\/mcp$/,
        );
        // Every project's calls on one list, each named with its project.
        const activity = page.getByTestId('cross-activity');
        for (const slug of ['alpha', 'beta', 'gamma'])
          await activity.locator(`tr[data-project="${slug}"]`).first().waitFor();
        await settle(page);
        await screenshot(page, `projects-home-${theme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }

  test("the switcher keeps the page and opens the other project's data", async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${url}/board`);
      await page.getByText('alpha task 1').first().waitFor();
      const switcher = page.getByTestId('project-switcher').locator('select');
      assert.equal(await switcher.inputValue(), 'alpha');
      await switcher.selectOption('beta');
      await page.waitForURL(`${url}/p/beta/board`);
      await page.getByText('beta task 1').first().waitFor();
      assert.equal(await page.getByText('alpha task 1').count(), 0, "alpha's tasks are not on beta's board");
      assert.equal(await page.getByTestId('project-switcher').locator('select').inputValue(), 'beta');
      // In-app links stay inside the project.
      await page.getByRole('link', { name: 'Activity', exact: true }).click();
      await page.waitForURL(`${url}/p/beta/activity`);
      await page.getByTestId('project-switcher').locator('select').selectOption('alpha');
      await page.waitForURL(`${url}/activity`);
      await settle(page);
      await screenshot(page, 'projects-switched');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a page reached directly under /p/<slug>/ reads that project and a reload stays there', async () => {
    const { page, errors, close } = await openPage(browser, { colorScheme: 'dark' });
    try {
      await page.goto(`${url}/p/gamma/board`);
      await page.getByText('gamma task 2').first().waitFor();
      await page.reload();
      await page.getByText('gamma task 2').first().waitFor();
      assert.equal(await page.getByTestId('project-switcher').locator('select').inputValue(), 'gamma');
      await screenshot(page, 'projects-gamma-board-dark');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test("the home page's polls are neither recorded nor use; idle projects say they released", async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      const counts = () =>
        projects.list().map((p) => {
          p.hub.calls.flush();
          return p.hub.db
            .prepare(
              "SELECT count(*) FROM tool_calls WHERE tool IN ('cos_project_list', 'cos_observability_timeline')",
            )
            .pluck()
            .get() as number;
        });
      const before = counts();
      const usedAt = projects.list().map((p) => p.hub.lastUsedAt());
      const polls: { url: string; headers: Record<string, string> }[] = [];
      page.on('request', (r) => {
        if (/\/api\/(projects|observability\/timeline)/.test(r.url()))
          polls.push({ url: r.url(), headers: r.headers() });
      });
      await page.goto(`${url}/`);
      await page.getByTestId('project-card').nth(2).waitFor();
      // The first load and two refreshes (every 5 s) of the list, and every project's timeline.
      for (let i = 0; i < 2; i++)
        await page.waitForRequest((r) => r.url().endsWith('/api/projects'), { timeout: 15_000 });
      await page.waitForLoadState('networkidle');
      const lists = polls.filter((p) => p.url.endsWith('/api/projects')).length;
      const timelines = polls.length - lists;
      assert.ok(lists >= 3 && timelines >= 3, `the page polled: ${lists} lists, ${timelines} timelines`);
      for (const { url: u, headers } of polls) assert.equal(headers['x-cos-background'], '1', u);
      assert.deepEqual(counts(), before, 'no call recorded in any project');
      assert.deepEqual(
        projects.list().map((p) => p.hub.lastUsedAt()),
        usedAt,
        'no project counts the page as use',
      );
      // Nobody uses any project here: each card comes to say so.
      const use = page.locator('[data-slug="gamma"] [data-testid="project-use"]');
      await page.waitForFunction(
        (el) => /caches released/.test(el?.textContent ?? ''),
        await use.elementHandle(),
        { timeout: 20_000 },
      );
      await settle(page);
      await screenshot(page, 'projects-home-idle-light');
      await page.emulateMedia({ colorScheme: 'dark' });
      await settle(page);
      await screenshot(page, 'projects-home-idle-dark');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
