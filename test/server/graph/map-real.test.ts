// The map tools on a real package, fastify as the lock file pins it (JavaScript, its type declarations
// and its tests): communities and the ranking are the same on a second, forced index (new row ids), every
// answer over the agent budget path fits 32 KB without the trimmer cutting anything, and the overview
// stays under 2,000 tokens.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Indexer } from '../../../server/graph/indexer.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import { runTool } from '../../../server/tools/run.ts';
import { budgetSize, TOKEN_BUDGET_CHARS } from '../../../shared/envelope/index.ts';
import { type GraphHub, graphHub } from './tools/support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Any = any;

const FASTIFY = fileURLToPath(new URL('../../../node_modules/fastify/', import.meta.url));

let dir: string;
let g: GraphHub;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cos-map-real-'));
  for (const part of ['lib', 'types', 'test', 'fastify.js', 'fastify.d.ts'])
    cpSync(join(FASTIFY, part), join(dir, 'fastify', part), { recursive: true });
  g = await graphHub(dir);
});
after(async () => {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
});

const CALLS: [string, Record<string, unknown>][] = [
  ['cos_graph_communities', {}],
  ['cos_graph_communities', { limit: 50 }],
  ['cos_graph_communities', { level: 'symbol', limit: 50 }],
  ['cos_graph_communities', { community: 1, limit: 50 }],
  ['cos_graph_ranking', {}],
  ['cos_graph_ranking', { limit: 200 }],
  ['cos_graph_ranking', { query: 'reply send', limit: 50 }],
  ['cos_graph_ranking', { kind: 'class', external: true, limit: 100 }],
  ['cos_graph_overview', {}],
];

async function answers(): Promise<Any[]> {
  const out: Any[] = [];
  for (const [name, input] of CALLS) {
    // As the MCP face calls it: the agent budget applied, and told to the tool so it can page to fit.
    const env: Any = await runTool(catalog.find((t) => t.name === name)!, input, {
      applyBudget: true,
      ctx: g.hub.context({ transport: 'internal' }, { budget: TOKEN_BUDGET_CHARS }),
    });
    assert.equal(env.ok, true, `${name} ${JSON.stringify(input)}: ${JSON.stringify(env.error)}`);
    const size = budgetSize(JSON.stringify(env));
    assert.ok(size <= TOKEN_BUDGET_CHARS, `${name} ${JSON.stringify(input)}: ${size}`);
    assert.equal(env.data.meta.truncated, false, `${name} ${JSON.stringify(input)} was cut by the budget`);
    out.push(env.data);
  }
  return out;
}

const strip = (d: Any) => ({ ...d, meta: { next_cursor: d.meta.next_cursor === null ? null : 'more' } });

describe('the map on fastify', () => {
  test('fits the agent budget, and is the same after a forced re-index', async () => {
    const first = await answers();
    const files = first[0];
    assert.ok(files.total_count >= 5, `${files.total_count} communities`);
    assert.ok(files.modularity > 0.3, `modularity ${files.modularity}`);
    assert.ok(first[2].total_count > files.total_count, 'symbols make more, smaller groups');
    // fastify's own entry point is among the most depended-on files.
    assert.ok(
      first[5].results.slice(0, 20).some((x: Any) => x.uid === 'code:file:fastify/fastify.js'),
      JSON.stringify(first[5].results.slice(0, 20).map((x: Any) => x.uid)),
    );
    assert.ok(first[7].results.length > 0);
    // Fifty groups of symbols do not fit one answer: the page stops where the budget does, with a cursor.
    assert.ok(first[2].communities.length < 50, `${first[2].communities.length}`);
    assert.notEqual(first[2].meta.next_cursor, null);
    const overview = budgetSize(JSON.stringify({ ok: true, data: first[8] }));
    assert.ok(overview <= 8_000, `overview ${overview} characters`);

    await new Indexer({ repo: dir, db: g.hub.db }).run({ force: true, reload: true });
    const second = await answers();
    assert.notEqual(second[0].meta.map.generation, first[0].meta.map.generation);
    for (let i = 0; i < CALLS.length; i++)
      assert.deepEqual(strip(second[i]), strip(first[i]), `${CALLS[i]![0]} ${JSON.stringify(CALLS[i]![1])}`);
  });
});
