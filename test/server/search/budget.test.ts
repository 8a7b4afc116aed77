// No search can hold the thread that answers everyone. A row built from valid input to be as costly as
// it can (one letter ten thousand times), searched with as many one-letter terms and spellings of that
// letter as a query may hold: every search answers (results, or `transient` naming its budget) within a
// bound, /api/health keeps answering while it runs, and the same holds after a restart.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../../server/db/open.ts';
import { WITHIN_BUDGET, withBudgetFunction, withinBudget } from '../../../server/search/budget.ts';
import { independent, phraseOf, planQuery } from '../../../server/search/fts-query.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import {
  postBadRows,
  SEARCH_ROUTES,
  SPELLINGS,
  untilDocIndexed,
  worstQueries,
  writeBadDoc,
} from '../../support/pathological.ts';

interface Timed {
  status: number;
  ms: number;
  body: { data?: unknown; error?: { category: string; message: string } };
}

async function timed(url: string): Promise<Timed> {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = (await res.json()) as Timed['body'];
  return { status: res.status, ms: performance.now() - t0, body };
}

/** Runs `search` while asking for /api/health every 20 ms; the slowest health answer seen meanwhile. */
async function healthDuring(
  base: string,
  search: Promise<Timed>,
): Promise<{ search: Timed; worstHealthMs: number }> {
  let done = false;
  let worst = 0;
  const poll = (async () => {
    while (!done) {
      const h = await timed(`${base}/api/health`);
      assert.equal(h.status, 200);
      worst = Math.max(worst, h.ms);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const result = await search.finally(() => {
    done = true;
  });
  await poll;
  return { search: result, worstHealthMs: worst };
}

// Generous against a loaded machine, and still far below what these queries cost without the budget
// (5 s for one term against the task row, minutes for thirty-two).
const SEARCH_LIMIT_MS = 5_000;
const HEALTH_LIMIT_MS = 2_500;

describe('the worst searches valid input can build', () => {
  const repo = mkdtempSync(join(tmpdir(), 'cos-search-budget-'));
  let t: TestHub;

  async function start(): Promise<TestHub> {
    const hub = await startTestHub({ env: { COS_REPO: repo, COS_RATE_LIMIT_RPS: '0' } });
    await hub.hub.start();
    await hub.listen();
    return hub;
  }

  before(async () => {
    mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
    writeBadDoc(repo);
    t = await start();
    await postBadRows(t.url);
    await untilDocIndexed(t.url);
  });
  after(async () => {
    await t.close();
    rmSync(repo, { recursive: true, force: true });
  });

  for (const [name, path, maxLength] of SEARCH_ROUTES) {
    test(`${name} answers within its budget and /api/health keeps answering meanwhile`, {
      timeout: 120_000,
    }, async () => {
      for (const query of worstQueries(maxLength)) {
        const url = `${t.url}${path}?query=${encodeURIComponent(query)}`;
        const { search, worstHealthMs } = await healthDuring(t.url, timed(url));
        assert.ok(search.ms < SEARCH_LIMIT_MS, `${name} "${query.slice(0, 40)}…" took ${search.ms} ms`);
        assert.ok(worstHealthMs < HEALTH_LIMIT_MS, `health took ${worstHealthMs} ms during ${name}`);
        if (search.status !== 200) {
          assert.equal(search.status, 503, JSON.stringify(search.body));
          assert.equal(search.body.error?.category, 'transient');
          assert.match(search.body.error?.message ?? '', /budget \(COS_SEARCH_BUDGET_MS\)/);
        }
      }
    });
  }

  test('the rows do it no more after a restart', { timeout: 120_000 }, async () => {
    await t.close().catch(() => {});
    // close() removed the test's own temp dir, not the repository it was pointed at.
    t = await start();
    for (const [name, path, maxLength] of SEARCH_ROUTES) {
      const { search, worstHealthMs } = await healthDuring(
        t.url,
        timed(`${t.url}${path}?query=${encodeURIComponent(worstQueries(maxLength)[0]!)}`),
      );
      assert.ok(search.ms < SEARCH_LIMIT_MS, `${name} took ${search.ms} ms after the restart`);
      assert.ok(worstHealthMs < HEALTH_LIMIT_MS);
    }
  });
});

describe('the search budget', () => {
  test('stops a statement between rows once its time is spent, as transient with what to do', () => {
    const db = withBudgetFunction(openDatabase(':memory:'));
    db.exec('CREATE TABLE n (x INTEGER)');
    db.prepare(
      `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000) INSERT INTO n SELECT i FROM c`,
    ).run();
    // A deliberately slow statement: a correlated count per row.
    const slow = db.prepare(
      `SELECT x, (SELECT count(*) FROM n m WHERE m.x < n.x) AS c FROM n WHERE ${WITHIN_BUDGET} LIMIT 50000`,
    );
    const t0 = performance.now();
    assert.throws(
      () => withinBudget(db, 50, 'test', () => slow.all()),
      (err: Error & { category?: string }) =>
        err.category === 'transient' && /this test search needs more than its 50 ms budget/.test(err.message),
    );
    assert.ok(performance.now() - t0 < 2_000, 'stopped near its deadline');
    // Outside a budget the same function passes, so the statement works (a cheap one here).
    assert.equal(db.prepare(`SELECT count(*) FROM n WHERE x < 10 AND ${WITHIN_BUDGET}`).pluck().get(), 9);
    // Nested: the nearer deadline wins, and the outer one is restored afterwards.
    assert.throws(
      () => withinBudget(db, 10_000, 'outer', () => withinBudget(db, 50, 'inner', () => slow.all())),
      /inner/,
    );
    db.close();
  });

  test('no two terms of a plan match the same words (case, diacritics, `_`, prefixes, repeats)', () => {
    const plan = planQuery(SPELLINGS.join(' '));
    assert.equal(plan.wordsAll, '"a"');
    assert.equal(plan.wordsAny, null);
    const prefixes = planQuery('con conf config configuration');
    assert.equal(prefixes.wordsAll, '"configuration"*', 'AND keeps the most specific');
    assert.equal(prefixes.wordsAny, null, 'OR keeps the most general, and one term needs no OR');
    assert.equal(planQuery('con conf pool').wordsAny, '"con"* OR "pool"*');
    assert.equal(planQuery('config.ts config').wordsAll, '"config ts"', 'a phrase implies its words');
    assert.equal(planQuery('aaa aaaa aaaaa').substringMatch, '"aaaaa"');
    assert.deepEqual(planQuery('ab abc xy').shortTerms, ['xy']);
    // The board's shape: exact words, the last one a prefix. `ab` implies `a*`; `ab*` would not imply `a`.
    const board = independent(
      ['ab', 'ab', 'a'].map((w, i, all) => phraseOf([w], i === all.length - 1)),
      'all',
    );
    assert.deepEqual(
      board.map((p) => p.text),
      ['"ab"'],
    );
  });
});
