// The repository map's tools on a repository built to have an answer: two groups of files that call
// each other (billing in TypeScript, auth in Python) joined by one import, and a hub function everything
// calls. Communities must find the two groups, the same ones on every index; the ranking must put the
// hub first and move towards what a query names; every list pages with a cursor that the next
// generation refuses; the model is the same computed in a worker thread as in place.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Graph from 'graphology';
import pagerank from 'graphology-metrics/centrality/pagerank.js';
import { Indexer } from '../../../server/graph/indexer.ts';
import {
  MAP_WORKER_EDGES,
  mapModel,
  setMapWorkerThreshold,
} from '../../../server/graph/queries/map-cache.ts';
import { computeMap, personalisedPagerank } from '../../../server/graph/queries/map-model.ts';
import { budgetSize, TOKEN_BUDGET_CHARS } from '../../../shared/envelope/index.ts';
import { type GraphHub, graphHub } from './tools/support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Any = any;

let dir: string;
let g: GraphHub;

function write(path: string, text: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cos-map-'));
  write('src/shared/core util.ts', 'export function hub(x: number): number {\n  return x + 1;\n}\n');
  const billing = ['invoice', 'ledger', 'payment', 'refund', 'tax'];
  billing.forEach((name, i) => {
    const next = billing[(i + 1) % billing.length]!;
    const prev = billing[(i + billing.length - 1) % billing.length]!;
    write(
      `src/billing/${name}.ts`,
      [
        `import { ${next}Step } from './${next}';`,
        `import { ${prev}Step } from './${prev}';`,
        "import { hub } from '../shared/core util';",
        `export function ${name}Step(n: number): number {`,
        `  return n > 9 ? n : ${next}Step(n + 1) + ${prev}Step(n + 2) + hub(n);`,
        '}',
        '',
      ].join('\n'),
    );
  });
  const auth = ['login', 'session', 'token', 'password'];
  write('auth/__init__.py', '');
  auth.forEach((name, i) => {
    const next = auth[(i + 1) % auth.length]!;
    const other = auth[(i + 2) % auth.length]!;
    write(
      `auth/${name}.py`,
      [
        `from auth.${next} import ${next}_check`,
        `from auth.${other} import ${other}_check`,
        '',
        `def ${name}_check(n):`,
        `    return ${next}_check(n) + ${other}_check(n)`,
        '',
      ].join('\n'),
    );
  });
  // Features that each lean on the shared hub and nothing else.
  for (const name of ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'theta']) {
    write(
      `src/features/${name}.ts`,
      `import { hub } from '../shared/core util';\nexport function ${name}Feature(): number {\n  return hub(1);\n}\n`,
    );
  }
  write(
    'src/app.ts',
    "import { invoiceStep } from './billing/invoice';\nexport const run = () => invoiceStep(1);\n",
  );
  g = await graphHub(dir);
});
after(async () => {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = (d: Any) => d.communities.map((c: Any) => `${c.folder}:${c.size}`);

describe('cos_graph_communities', () => {
  test('finds the two groups of files that call each other, largest first, with modularity', async () => {
    const d = await g.data('cos_graph_communities', {});
    assert.equal(d.level, 'file');
    assert.ok(d.modularity > 0.2, `modularity ${d.modularity}`);
    const billing = d.communities.find((c: Any) => c.folder === 'src/billing');
    const auth = d.communities.find((c: Any) => c.folder === 'auth');
    assert.ok(billing, JSON.stringify(names(d)));
    assert.ok(auth, JSON.stringify(names(d)));
    assert.notEqual(billing.id, auth.id);
    assert.ok(billing.size >= 5 && auth.size >= 4, JSON.stringify(names(d)));
    // Largest first, ids in that order.
    const sizes = d.communities.map((c: Any) => c.size);
    assert.deepEqual(
      sizes,
      [...sizes].sort((a: number, b: number) => b - a),
    );
    assert.deepEqual(
      d.communities.map((c: Any) => c.id),
      d.communities.map((_: Any, i: number) => i + 1),
    );
    // Named after the folder and its most central symbol; central symbols are symbols of its files.
    assert.match(billing.name, /^src\/billing · /);
    assert.ok(billing.central.length > 0);
    assert.ok(billing.central.some((s: Any) => s.uid.startsWith('code:function:src/billing/')));
    assert.ok(billing.members.every((u: string) => u.startsWith('code:file:')));
    assert.equal(d.meta.map.generation, d.meta.freshness.generation);
  });

  test('a community pages its members with a cursor, and a bad id or cursor says what to do', async () => {
    const list = await g.data('cos_graph_communities', {});
    const biggest = list.communities[0];
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 20; i++) {
      const d = await g.data('cos_graph_communities', {
        community: biggest.id,
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(d.total_count, biggest.size);
      seen.push(...d.communities[0].members);
      cursor = d.meta.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.equal(seen.length, biggest.size);
    assert.equal(new Set(seen).size, biggest.size);
    const missing = await g.call('cos_graph_communities', { community: 999 });
    assert.equal(missing.ok, false);
    assert.equal(!missing.ok && missing.error.category, 'not_found');
    const forged = await g.call('cos_graph_communities', { cursor: 'bm90LWEtY3Vyc29y' });
    assert.equal(!forged.ok && forged.error.category, 'validation');
  });

  test('symbol level groups functions, and isolated nodes are counted, not listed', async () => {
    const d = await g.data('cos_graph_communities', { level: 'symbol', limit: 50 });
    assert.equal(d.level, 'symbol');
    assert.ok(d.communities.length >= 2);
    const all = d.communities.flatMap((c: Any) => c.members);
    assert.ok(all.every((u: string) => !u.startsWith('code:file:')));
    assert.equal(typeof d.isolated, 'number');
  });
});

describe('cos_graph_ranking', () => {
  test('puts the function everything calls first among functions, externals left out', async () => {
    const d = await g.data('cos_graph_ranking', { kind: 'function', limit: 5 });
    assert.equal(d.results[0].uid, 'code:function:src/shared/core util.ts::hub');
    assert.ok(d.results[0].score > 1);
    const all = await g.data('cos_graph_ranking', { limit: 200 });
    assert.ok(all.results.every((x: Any) => !x.uid.startsWith('code:external:')));
    assert.equal(all.total_count, all.results.length);
  });

  test('a query moves the ranking towards what it names', async () => {
    const plain = await g.data('cos_graph_ranking', { kind: 'function', limit: 20 });
    const auth = await g.data('cos_graph_ranking', { query: 'login', kind: 'function', limit: 3 });
    assert.ok(auth.meta.seeds >= 1);
    assert.ok(auth.meta.iterations >= 1);
    for (const x of auth.results) assert.match(x.uid, /auth\//);
    assert.notDeepEqual(
      auth.results.map((x: Any) => x.uid),
      plain.results.slice(0, 3).map((x: Any) => x.uid),
    );
    const none = await g.call('cos_graph_ranking', { query: 'zzqqxxnothing' });
    assert.equal(!none.ok && none.error.category, 'not_found');
  });

  test('pages cover the ranking once each, and the next generation refuses an old cursor', async () => {
    const first = await g.data('cos_graph_ranking', { limit: 4 });
    const seen: string[] = first.results.map((x: Any) => x.uid);
    let cursor = first.meta.next_cursor;
    while (cursor) {
      const d = await g.data('cos_graph_ranking', { limit: 4, cursor });
      seen.push(...d.results.map((x: Any) => x.uid));
      cursor = d.meta.next_cursor;
    }
    assert.equal(seen.length, first.total_count);
    assert.equal(new Set(seen).size, seen.length);
    const other = await g.call('cos_graph_ranking', {
      limit: 4,
      kind: 'file',
      cursor: first.meta.next_cursor,
    });
    assert.equal(!other.ok && other.error.category, 'validation');
    await new Indexer({ repo: dir, db: g.hub.db }).run({});
    const stale = await g.call('cos_graph_ranking', { limit: 4, cursor: first.meta.next_cursor });
    assert.equal(!stale.ok && stale.error.category, 'validation');
    assert.match(!stale.ok ? stale.error.message : '', /changed since this cursor/);
  });
});

describe('the map model', () => {
  test('the hand-written walk agrees with graphology-metrics when nothing is personalised', () => {
    const m = computeMap(g.hub.db);
    const n = m.uids.length;
    const own = personalisedPagerank(m, n, null, m.outside, { maxIterations: 200, tolerance: 1e-10 });
    const dg = new Graph({ type: 'directed' });
    for (let i = 0; i < n; i++) if (!m.outside[i]) dg.addNode(String(i));
    for (let i = 0; i < n; i++)
      for (let j = m.offsets[i]!; j < m.offsets[i + 1]!; j++) {
        const t = m.targets[j]!;
        if (!m.outside[i] && !m.outside[t]) dg.addEdge(String(i), String(t));
      }
    const lib = pagerank(dg, { getEdgeWeight: null, maxIterations: 200, tolerance: 1e-10 });
    for (const [k, v] of Object.entries(lib)) assert.ok(Math.abs(own.rank[Number(k)]! - v) < 1e-6, k);
    for (const [k, v] of Object.entries(lib)) assert.ok(Math.abs(m.rank[Number(k)]! - v) < 1e-4, k);
  });

  test('is the same after a forced re-index (new row ids) and when computed in a worker thread', async () => {
    const before = await g.data('cos_graph_communities', { level: 'symbol', limit: 50 });
    const rankBefore = await g.data('cos_graph_ranking', { limit: 50 });
    await new Indexer({ repo: dir, db: g.hub.db }).run({ force: true, reload: true });
    setMapWorkerThreshold(0);
    try {
      const m = await mapModel(g.hub.db);
      assert.ok(m.computeMs >= 0);
      const after = await g.data('cos_graph_communities', { level: 'symbol', limit: 50 });
      const rankAfter = await g.data('cos_graph_ranking', { limit: 50 });
      const strip = (d: Any) => ({ ...d, meta: undefined });
      assert.deepEqual(strip(after), strip(before));
      assert.deepEqual(strip(rankAfter), strip(rankBefore));
      assert.notEqual(after.meta.map.generation, before.meta.map.generation);
    } finally {
      setMapWorkerThreshold(MAP_WORKER_EDGES);
    }
  });
});

describe('cos_graph_overview', () => {
  test('fits 2,000 tokens and names the groups, the most depended-on symbols and the calls to go deeper', async () => {
    const env = await g.call('cos_graph_overview', {});
    assert.ok(env.ok);
    const size = budgetSize(JSON.stringify(env));
    assert.ok(size <= 8_000 && size <= TOKEN_BUDGET_CHARS, `${size}`);
    const d: Any = env.data;
    assert.ok(d.size.files >= 10);
    assert.ok(d.languages.some((l: Any) => l.language === 'python'));
    assert.equal(d.api_surface, null);
    assert.ok(d.communities.length >= 2);
    assert.equal(d.most_depended_on[0].label, 'hub');
    assert.ok(d.next.some((s: string) => s.startsWith('cos_graph_communities')));
  });
});
