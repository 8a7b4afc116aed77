// The worst search valid input can build, against a real hub on a real port: the pathological rows of
// test/support/pathological.ts (tasks, observations, a document of one letter ten thousand times) and
// every worst query on every search route, sent one after another by one client for `seconds`, while a
// second client asks for /api/health in a closed loop. The same health loop runs first with no search,
// as the baseline of the same run (this machine is shared and noisy: compare the two, not across runs).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createHub } from '../../server/hub.ts';
import {
  postBadRows,
  SEARCH_ROUTES,
  untilDocIndexed,
  WORST_QUERY_NAMES,
  worstQueries,
  writeBadDoc,
} from '../../test/support/pathological.ts';
import { fmt, summarize, table } from './lib.ts';

async function timed(url: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
}

async function healthLoop(base: string, until: () => boolean): Promise<number[]> {
  const out: number[] = [];
  while (!until()) out.push((await timed(`${base}/api/health`)).ms);
  return out;
}

export async function worstCase(seconds: number): Promise<string> {
  const repo = mkdtempSync(join(tmpdir(), 'cos-bench-worst-'));
  mkdirSync(join(repo, 'docs', 'tasks'), { recursive: true });
  writeBadDoc(repo);
  const config = loadConfig({ COS_REPO: repo, COS_PORT: '0', COS_RATE_LIMIT_RPS: '0' }, {}, repo);
  const hub = createHub(config);
  const app = await buildApp(hub);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await hub.start();
    await postBadRows(base);
    await untilDocIndexed(base);

    let end = performance.now() + seconds * 1000;
    const baseline = await healthLoop(base, () => performance.now() > end);

    const perRoute = new Map<string, { ms: number[]; ok: number; transient: number; other: number }>();
    const perQuery = new Map<string, number[]>();
    end = performance.now() + seconds * 1000;
    const searching = (async () => {
      while (performance.now() < end) {
        for (const [name, path, maxLength] of SEARCH_ROUTES) {
          for (const [i, query] of worstQueries(maxLength).entries()) {
            const r = await timed(`${base}${path}?query=${encodeURIComponent(query)}`);
            const key = `${name}: ${WORST_QUERY_NAMES[i]} (${query.length} chars)`;
            perQuery.set(key, [...(perQuery.get(key) ?? []), r.ms]);
            const row = perRoute.get(name) ?? { ms: [], ok: 0, transient: 0, other: 0 };
            row.ms.push(r.ms);
            if (r.status === 200) row.ok++;
            else if (r.status === 503) row.transient++;
            else row.other++;
            perRoute.set(name, row);
          }
        }
      }
    })();
    const during = await healthLoop(base, () => performance.now() > end);
    await searching;

    const b = summarize(baseline);
    const d = summarize(during);
    const max = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), 0);
    const lines = [
      `worst case: ${seconds} s with no search, then ${seconds} s of the worst queries on every search route`,
      `(one client, one query at a time) while another client asks for /api/health in a closed loop\n`,
      table(
        ['/api/health', 'requests', 'p50 ms', 'p99 ms', 'max ms'],
        [
          ['no search (baseline)', b.n, fmt(b.p50), fmt(b.p99), fmt(max(baseline))],
          ['during the worst searches', d.n, fmt(d.p50), fmt(d.p99), fmt(max(during))],
        ],
      ),
      '',
      table(
        ['worst query on', 'calls', 'p50 ms', 'p99 ms', 'max ms', 'ok', 'transient (over budget)', 'other'],
        [...perRoute].map(([name, r]) => {
          const s = summarize(r.ms);
          return [name, s.n, fmt(s.p50), fmt(s.p99), fmt(max(r.ms)), r.ok, r.transient, r.other];
        }),
      ),
      '',
      table(
        ['route: query', 'calls', 'p50 ms', 'p99 ms', 'max ms'],
        [...perQuery]
          .map(([key, ms]) => ({ key, ms, s: summarize(ms) }))
          .sort((a, b) => b.s.p99 - a.s.p99)
          .map(({ key, ms, s }) => [key, s.n, fmt(s.p50), fmt(s.p99), fmt(max(ms))]),
      ),
      `\nthe worst query (highest p99 first above): ${[...perQuery].sort((a, b) => summarize(b[1]).p99 - summarize(a[1]).p99)[0]?.[0] ?? 'none'}`,
      `search budget: ${config.searchBudgetMs} ms a layer (COS_SEARCH_BUDGET_MS)`,
    ];
    return lines.join('\n');
  } finally {
    await app.close();
    await hub.close();
    rmSync(repo, { recursive: true, force: true });
  }
}
