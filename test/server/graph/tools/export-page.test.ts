// cos_graph_export over MCP answers what fits the agent budget by default, in pages that add up to the
// whole export; REST (the SPA) and `budget: "subgraph"` still get all of it. The real hub indexes a
// generated repository in its worker; the official SDK Client calls it over a real port.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { budgetSize, TOKEN_BUDGET_CHARS } from '../../../../shared/envelope/index.ts';
import { connectClient, startTestHub, type TestHub } from '../../../support/hub.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

let t: TestHub;
let client: Client;
const host = { host: '127.0.0.1' };

before(async () => {
  t = await startTestHub({ env: { COS_REPO: 'repo', COS_STATE_DIR: 'state' } });
  // 60 modules of 8 functions that call each other: a containment tree of about 540 nodes within the
  // default three hops (repository, src, file, function).
  const dir = join(t.config.repo, 'src');
  mkdirSync(dir, { recursive: true });
  for (let m = 0; m < 60; m++) {
    const body = Array.from(
      { length: 8 },
      (_, f) =>
        `export function handle_${m}_${f}(input: number): number {\n  return ${f > 0 ? `handle_${m}_${f - 1}(input) + ` : ''}input;\n}\n`,
    ).join('\n');
    writeFileSync(join(dir, `module_${m}.ts`), body);
  }
  await t.hub.start();
  await t.hub.services.graph.ready();
  await t.listen();
  client = await connectClient(t.url);
});
after(async () => {
  await client.close();
  await t.close();
});

async function call(args: Record<string, unknown>) {
  const res = await client.callTool({ name: 'cos_graph_export', arguments: args });
  const text = (res.content as { text: string }[])[0]!.text;
  return { isError: res.isError === true, env: res.structuredContent as Item, size: budgetSize(text) };
}

const edgeKey = (e: { source: string; target: string; type: string }) => `${e.source}>${e.target}:${e.type}`;

describe('cos_graph_export over MCP', () => {
  test('with default arguments it fits the agent budget, says it was cut and how to get more', async () => {
    const { isError, env, size } = await call({});
    assert.equal(isError, false, JSON.stringify(env));
    assert.ok(size <= TOKEN_BUDGET_CHARS, `fits: ${size}`);
    const meta = env.data.meta;
    assert.equal(meta.truncated, false, 'paged by the tool, not cut by the trimmer');
    assert.equal(meta.page.offset, 0);
    assert.ok(meta.page.nodes > 10 && meta.page.nodes < meta.page.of_nodes, JSON.stringify(meta.page));
    assert.equal(env.data.nodes.length, meta.page.nodes);
    assert.equal(env.data.node_count, meta.page.nodes);
    assert.match(meta.more, /next_cursor/);
    assert.match(meta.more, /smaller root/);
    assert.match(meta.more, /mermaid/);
    assert.match(meta.more, /subgraph/);
    assert.equal(typeof meta.next_cursor, 'string');
  });

  test('its pages, followed by cursor, are the whole export the SPA draws, each edge once', async () => {
    const rest = await t.app.inject({ method: 'GET', url: '/api/graph/export', headers: host });
    assert.equal(rest.statusCode, 200, rest.body);
    const whole = rest.json().data;
    assert.ok(budgetSize(rest.body) > TOKEN_BUDGET_CHARS, 'the whole export is larger than one answer');
    const nodes: string[] = [];
    const edges: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { env, size } = await call(cursor ? { cursor } : {});
      assert.equal(env.ok, true, JSON.stringify(env));
      assert.ok(size <= TOKEN_BUDGET_CHARS, `page ${pages} fits: ${size}`);
      nodes.push(...env.data.nodes.map((n: { uid: string }) => n.uid));
      edges.push(...env.data.edges.map(edgeKey));
      cursor = env.data.meta.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 50);
    assert.ok(pages > 1, 'more than one page');
    assert.deepEqual(
      nodes,
      whole.nodes.map((n: { uid: string }) => n.uid),
      'the same nodes in the same order',
    );
    assert.deepEqual([...edges].sort(), whole.edges.map(edgeKey).sort(), 'every edge exactly once');
  });

  test('mermaid fits too, with more nodes than a JSON page, and says how to get the rest', async () => {
    const json = await call({});
    const { env, size } = await call({ format: 'mermaid' });
    assert.equal(env.ok, true);
    assert.ok(size <= TOKEN_BUDGET_CHARS, `fits: ${size}`);
    assert.match(env.data.text, /^flowchart LR/);
    assert.ok(env.data.node_count > json.env.data.node_count, 'denser than JSON');
    assert.equal(env.data.meta.next_cursor, null);
    assert.match(env.data.meta.more, /smaller root/);
  });

  test('budget "subgraph" answers the whole selection, as the contract\'s 5 MB tier allows', async () => {
    const { env, size } = await call({ budget: 'subgraph' });
    assert.equal(env.ok, true);
    assert.ok(size > TOKEN_BUDGET_CHARS);
    assert.equal(env.data.meta.page, undefined);
    assert.equal(env.data.nodes.length, env.data.node_count);
  });

  test('a small export is answered whole, with nothing said about pages', async () => {
    const { env } = await call({ root: 'src/module_0.ts' });
    assert.equal(env.ok, true, JSON.stringify(env));
    assert.equal(env.data.meta.page, undefined);
    assert.equal(env.data.meta.more, undefined);
    assert.equal(env.data.meta.next_cursor, null);
  });

  test("a cursor that is not this export's is a validation error that says what to do", async () => {
    const first = await call({});
    const cursor = first.env.data.meta.next_cursor;
    for (const args of [{ cursor: 'bm9uc2Vuc2U' }, { cursor, max_hops: 2 }, { cursor, format: 'dot' }]) {
      const { isError, env } = await call(args);
      assert.equal(isError, true, JSON.stringify(args));
      assert.equal(env.error.category, 'validation');
      assert.match(env.error.message, /cursor/);
    }
  });
});
