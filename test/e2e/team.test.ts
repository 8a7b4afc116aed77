// The SPA of a team: two real hubs on two clones of one origin, one real PostgreSQL. What machine A's
// agent does shows on machine B's pages: the board card it claimed names machine-a, Activity lists both
// machines' agents with their machine and branch and filters by machine, and the header counts the
// team's agents on two machines. Screenshots in light and dark.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { fixture } from '../support/hooks.ts';
import { type TestDatabase, teamDatabaseUrl } from '../support/postgres.ts';
import { git, startTeamHub, type TeamHub, type TeamRepos, teamRepos } from '../support/team.ts';
import { ensureSpaBuilt, launchChromium, openPage, screenshot, settle } from './browser.ts';

const CLAUDE_A = 'c1a0de00-0000-4000-8000-00000000000a';
const CODEX_B = 'c0de0000-0000-4000-8000-00000000000b';

let browser: Browser;
let repos: TeamRepos;
let db: TestDatabase;
let a: TeamHub;
let b: TeamHub;
let claimed = '';

async function hook(
  h: TeamHub,
  repo: string,
  client: 'claude-code' | 'codex',
  name: string,
  session: string,
) {
  const res = await fetch(`${h.url}/api/hooks/events?client=${client}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fixture(client, name, repo, { session_id: session })),
  });
  assert.equal(res.status, 200, await res.clone().text());
}

before(async () => {
  await ensureSpaBuilt();
  browser = await launchChromium();
  repos = teamRepos(2, 3, 'team-e2e');
  git(repos.clones[0]!, 'checkout', '-q', '-b', 'feature/math');
  db = await teamDatabaseUrl();
  a = await startTeamHub(repos.clones[0]!, db.url, 'machine-a');
  b = await startTeamHub(repos.clones[1]!, db.url, 'machine-b');
  // Machine A's Claude Code session starts, claims a task and edits a file; machine B's Codex starts.
  await hook(a, repos.clones[0]!, 'claude-code', 'session-start', CLAUDE_A);
  const res = await fetch(`${a.url}/api/board/claim-next`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_session: CLAUDE_A }),
  });
  const body = (await res.json()) as { data: { claimed: boolean; task: { id: string } } };
  assert.equal(body.data.claimed, true, JSON.stringify(body));
  claimed = body.data.task.id;
  await hook(a, repos.clones[0]!, 'claude-code', 'pre-tool-use-edit', CLAUDE_A);
  await hook(a, repos.clones[0]!, 'claude-code', 'post-tool-use-edit', CLAUDE_A);
  await hook(b, repos.clones[1]!, 'codex', 'session-start', CODEX_B);
});

after(async () => {
  await browser?.close();
  await Promise.all([a?.close(), b?.close()]);
  await db?.drop();
  repos?.remove();
});

describe('a team in the SPA', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`machine B's board shows the card machine A's agent claimed, on machine-a (${colorScheme})`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme });
      try {
        await page.goto(`${b.url}/board`);
        const card = page.locator(`[data-task-id="${claimed}"]`);
        await card.locator('.machine').getByText('on machine-a').waitFor({ timeout: 10_000 });
        assert.match((await card.locator('.agent').textContent()) ?? '', new RegExp(CLAUDE_A));
        await settle(page);
        await screenshot(page, `team-board-${colorScheme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });

    test(`machine B's Activity lists both machines' agents and filters by machine (${colorScheme})`, async () => {
      const { page, errors, close } = await openPage(browser, { colorScheme });
      try {
        await page.goto(`${b.url}/activity`);
        await page.getByTestId('stream-status').getByText('● Live').waitFor();
        const agents = page.getByTestId('agents');
        const rowA = agents.locator(`[data-agent="${CLAUDE_A}"]`);
        await rowA.waitFor({ timeout: 10_000 });
        assert.match(
          (await rowA.getByTestId('agent-machine').textContent()) ?? '',
          /machine-a\s*feature\/math/,
        );
        const rowB = agents.locator(`[data-agent="${CODEX_B}"]`);
        assert.match((await rowB.getByTestId('agent-machine').textContent()) ?? '', /machine-b/);
        // The claim on A, with its holder's machine, under "who is working on what".
        await page
          .getByTestId('working-on')
          .getByText(/on machine-a/)
          .waitFor();
        await page
          .getByTestId('agent-counts')
          .getByText(/2 machines/)
          .waitFor();
        await page
          .getByTestId('presence-summary')
          .getByText(/2 machines/)
          .waitFor({ timeout: 10_000 });
        await settle(page);
        await screenshot(page, `team-activity-${colorScheme}`);

        // One machine: only its agents, and the address keeps the choice.
        await page.getByTestId('machine-filter').selectOption('machine-a');
        await page.waitForURL(/machine=machine-a/);
        await rowB.waitFor({ state: 'detached' });
        assert.equal(await rowA.count(), 1);
        await page
          .getByTestId('agent-timeline')
          .getByText(/src\/math\.ts/)
          .first()
          .waitFor();
        await screenshot(page, `team-activity-machine-a-${colorScheme}`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }
});
