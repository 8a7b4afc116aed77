// The graph tools as agents and the SPA reach them: the real hub with its graph service (a worker thread
// indexing a copy of the TS fixture), the official MCP Client, and the REST routes through inject.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, startTestHub, type TestHub } from '../../../support/hub.ts';
import { FIXTURES } from './support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

let t: TestHub;
let client: Client;
const host = { host: '127.0.0.1' };

before(async () => {
  // startTestHub makes the temp dir; the repository and the state directory live inside it.
  t = await startTestHub({ env: { COS_REPO: 'repo', COS_STATE_DIR: 'state' } });
  mkdirSync(t.config.repo, { recursive: true });
  cpSync(`${FIXTURES}ts`, t.config.repo, { recursive: true });
  await t.hub.start();
  await t.hub.services.graph.ready();
  await t.listen();
  client = await connectClient(t.url);
});
after(async () => {
  await client.close();
  await t.close();
});

const call = async (name: string, args: Record<string, unknown>) => {
  const res = await client.callTool({ name, arguments: args });
  return { isError: res.isError === true, env: res.structuredContent as Item };
};

describe('over MCP', () => {
  test('tools/list carries every graph tool with its schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const graph = tools.filter((x) => x.name.startsWith('cos_graph_')).map((x) => x.name);
    assert.deepEqual(graph.sort(), [
      'cos_graph_api_surface',
      'cos_graph_communities',
      'cos_graph_context',
      'cos_graph_cycles',
      'cos_graph_dead_code',
      'cos_graph_detect_changes',
      'cos_graph_doctor',
      'cos_graph_entrypoints',
      'cos_graph_export',
      'cos_graph_impact',
      'cos_graph_overview',
      'cos_graph_path',
      'cos_graph_ranking',
      'cos_graph_references',
      'cos_graph_reindex',
      'cos_graph_rename_plan',
      'cos_graph_resolve',
      'cos_graph_search',
      'cos_graph_similar',
      'cos_graph_stats',
      'cos_graph_trace',
    ]);
    const context = tools.find((x) => x.name === 'cos_graph_context')!;
    assert.equal(context.annotations?.readOnlyHint, true);
    assert.ok(context.outputSchema);
  });

  test('context, references and impact answer from the worker-built graph with freshness', async () => {
    const ctx = await call('cos_graph_context', { node: 'Calculator' });
    assert.equal(ctx.isError, false);
    assert.equal(ctx.env.data.node.uid, 'code:class:src/lib/math.ts::Calculator');
    assert.equal(ctx.env.data.meta.resolved_from, 'exact_unique');
    assert.ok(ctx.env.data.meta.freshness.generation >= 1);
    assert.equal(ctx.env.data.meta.freshness.indexing, false);
    const refs = await call('cos_graph_references', { node: 'src/app.ts' });
    assert.equal(refs.env.data.meta.default_kinds_picked, true);
    assert.equal(refs.env.data.meta.node_kind, 'file');
    const impact = await call('cos_graph_impact', { node: 'code:function:src/lib/math.ts::add', depth: 3 });
    assert.equal(impact.env.data.meta.semantic_scope, 'transitive_depth_3');
    assert.equal(impact.env.data.impacted_count, 4);
  });

  test('an ambiguous name answers with candidates; an unknown one is an isError not_found', async () => {
    const amb = await call('cos_graph_impact', { node: 'add' });
    assert.equal(amb.isError, false);
    assert.equal(amb.env.data.ambiguous, true);
    assert.equal(amb.env.data.results.length, 2);
    const missing = await call('cos_graph_path', { source: 'main', target: 'no_such_thing_anywhere' });
    assert.equal(missing.isError, true);
    assert.equal(missing.env.error.category, 'not_found');
    const bad = await call('cos_graph_export', { max_nodes: 5000 });
    assert.equal(bad.isError, true);
    assert.equal(bad.env.error.category, 'validation');
  });

  test('reindex with force reports progress notifications and the pass figures', async () => {
    const seen: number[] = [];
    const res = await client.callTool({ name: 'cos_graph_reindex', arguments: { force: true } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    const env = res.structuredContent as Item;
    assert.equal(env.ok, true);
    assert.equal(env.data.files_changed, 7);
    assert.ok(env.data.generation >= 2);
    assert.ok(seen.length >= 2, `progress notifications: ${seen.join(',')}`);
    for (let i = 1; i < seen.length; i++)
      assert.ok(seen[i]! > seen[i - 1]!, `progress only increases: ${seen.join(',')}`);
  });

  test('doctor on the real graph is healthy', async () => {
    const doc = await call('cos_graph_doctor', {});
    assert.equal(doc.env.data.healthy, true);
    assert.deepEqual(doc.env.data.meta.informational_categories.length, 3);
  });
});

describe('over REST', () => {
  test('GET /api/graph/export serves {nodes, edges} without the agent budget and caches per generation', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/api/graph/export?max_hops=10', headers: host });
    assert.equal(first.statusCode, 200);
    const body = first.json();
    assert.ok(body.data.nodes.length > 10);
    assert.equal(body.meta.cached, false);
    const again = await t.app.inject({ method: 'GET', url: '/api/graph/export?max_hops=10', headers: host });
    assert.equal(again.json().meta.cached, true);
    await t.app.inject({
      method: 'POST',
      url: '/api/graph/reindex',
      payload: { force: true },
      headers: host,
    });
    const after = await t.app.inject({ method: 'GET', url: '/api/graph/export?max_hops=10', headers: host });
    assert.equal(after.json().meta.cached, false, 'a new generation is a new answer');
  });

  test('POST /api/graph/reindex answers the pass; unknown nodes are 404; bad input 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/graph/reindex', payload: {}, headers: host });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.files_changed, 0);
    const nf = await t.app.inject({
      method: 'GET',
      url: '/api/graph/context?node=nothing_like_this',
      headers: host,
    });
    assert.equal(nf.statusCode, 404);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/graph/reindex',
      payload: { paths: ['../outside'] },
      headers: host,
    });
    assert.equal(bad.statusCode, 400);
    const search = await t.app.inject({
      method: 'GET',
      url: `/api/graph/search?query=${encodeURIComponent('format')}&limit=5`,
      headers: host,
    });
    assert.equal(search.json().data.results[0].uid, 'code:function:src/lib/format.ts::format');
  });
});

// Keeps the temp layout honest: the state directory is not inside the indexed repository.
test('the hub state lives outside the indexed repository', () => {
  assert.ok(!t.config.stateDir.startsWith(join(t.config.repo, '/')));
});
