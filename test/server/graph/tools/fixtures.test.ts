// Golden answers of every graph tool on the hand-checked fixture repositories (test/fixtures/graph/),
// through runTool as the adapters call it: resolution, neighbours, references, impact tiers, paths,
// traces, similarity, rename plans, exports, cycles, dead code and stats.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FIXTURES, type GraphHub, graphHub } from './support.ts';

let ts: GraphHub;
let py: GraphHub;
before(async () => {
  ts = await graphHub(`${FIXTURES}ts`);
  py = await graphHub(`${FIXTURES}py`);
});
after(async () => {
  await ts.close();
  await py.close();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

const uids = (list: { uid: string }[]) => list.map((x) => x.uid);

describe('resolution', () => {
  test('an exact uid resolves directly, a path by prefix, a unique name exactly, the rest by FTS5', async () => {
    const direct = await ts.data('cos_graph_context', { node: 'code:function:src/app.ts::main' });
    assert.equal(direct.meta.resolved_from, 'direct');
    const path = await ts.data('cos_graph_context', { node: './src/lib/math.ts' });
    assert.equal(path.node.uid, 'code:file:src/lib/math.ts');
    assert.equal(path.meta.resolved_from, 'path_prefix');
    const abs = await ts.data('cos_graph_context', { node: `${ts.repo}/README.md` });
    assert.equal(abs.node.uid, 'doc:file:README.md');
    const folder = await ts.data('cos_graph_context', { node: 'src/lib/' });
    assert.equal(folder.node.uid, 'folder:src/lib');
    const qualified = await ts.data('cos_graph_context', { node: 'src/lib/math.ts::Calculator.add' });
    assert.equal(qualified.node.uid, 'code:method:src/lib/math.ts::Calculator.add');
    assert.equal(qualified.meta.resolved_from, 'path_prefix');
    const unique = await ts.data('cos_graph_context', { node: 'Calculator' });
    assert.equal(unique.node.uid, 'code:class:src/lib/math.ts::Calculator');
    assert.equal(unique.meta.resolved_from, 'exact_unique');
    const qname = await ts.data('cos_graph_context', { node: 'Calculator.reset' });
    assert.equal(qname.node.uid, 'code:method:src/lib/math.ts::Calculator.reset');
    assert.equal(qname.meta.resolved_from, 'exact_unique');
    // The same symbol, but not letter for letter: found, and the caller is told to verify it.
    const folded = await ts.data('cos_graph_context', { node: 'calculator' });
    assert.equal(folded.node.uid, 'code:class:src/lib/math.ts::Calculator');
    assert.equal(folded.meta.resolved_from, 'fuzzy_fts5');
    const dotted = await ts.data('cos_graph_references', { node: 'Calculator.reset' });
    assert.equal(dotted.node.uid, 'code:method:src/lib/math.ts::Calculator.reset');
  });

  test('an ambiguous name answers with ranked candidates and their uids, not a guess', async () => {
    const env = await ts.call('cos_graph_references', { node: 'add' });
    assert.ok(env.ok);
    const data = env.data as Record<string, Item>;
    assert.equal(data.ambiguous, true);
    assert.deepEqual(uids(data.results).sort(), [
      'code:function:src/lib/math.ts::add',
      'code:method:src/lib/math.ts::Calculator.add',
    ]);
    assert.equal(data.meta.resolved_from, 'fuzzy_fts5');
    assert.equal(data.references, undefined);
    const resolve = await ts.data('cos_graph_resolve', { name: 'add' });
    assert.equal(resolve.status, 'ambiguous');
    assert.equal(resolve.resolved, null);
  });

  test('an unknown node is not_found, naming the closest candidates when there are some', async () => {
    const none = await ts.call('cos_graph_context', { node: 'zzzqqq' });
    assert.ok(!none.ok);
    assert.equal(none.error.category, 'not_found');
    const close = await ts.call('cos_graph_impact', { node: 'src/lib/nope.ts' });
    assert.ok(!close.ok);
    assert.equal(close.error.category, 'not_found');
    const partial = await ts.call('cos_graph_context', { node: 'Calcu lator zz' });
    assert.ok(!partial.ok);
  });

  test('bad input is a validation error naming the argument', async () => {
    const env = await ts.call('cos_graph_impact', { node: 'main', depth: 99 });
    assert.ok(!env.ok);
    assert.equal(env.error.category, 'validation');
    assert.match(env.error.message, /depth/);
    const extra = await ts.call('cos_graph_search', { query: 'x', bogus: 1 });
    assert.ok(!extra.ok && extra.error.category === 'validation');
    const rename = await ts.call('cos_graph_rename_plan', { node: 'main', new_name: '1bad name' });
    assert.ok(!rename.ok && rename.error.category === 'validation');
  });
});

describe('search and resolve', () => {
  test('search ranks exact labels first, then by in-degree, and pages with next_offset', async () => {
    const data = await ts.data('cos_graph_search', { query: 'add' });
    assert.deepEqual(uids(data.results), [
      'code:function:src/lib/math.ts::add',
      'code:method:src/lib/math.ts::Calculator.add',
    ]);
    assert.equal(data.results[0].in_degree, 2);
    assert.equal(data.meta.layer, 'graph');
    assert.equal(data.meta.freshness.generation, 1);
    assert.ok(data.meta.freshness.last_indexed_at);
    const page = await ts.data('cos_graph_search', { query: 'add', limit: 1 });
    assert.equal(page.results.length, 1);
    assert.equal(page.meta.next_offset, 1);
    const rest = await ts.data('cos_graph_search', { query: 'add', limit: 1, offset: 1 });
    assert.equal(rest.results[0].uid, 'code:method:src/lib/math.ts::Calculator.add');
    assert.equal(rest.meta.next_offset, null);
    const kinds = await ts.data('cos_graph_search', { query: 'add', kinds: ['method'] });
    assert.deepEqual(uids(kinds.results), ['code:method:src/lib/math.ts::Calculator.add']);
  });

  test('camelCase words match separately', async () => {
    const data = await py.data('cos_graph_search', { query: 'greet' });
    assert.ok(uids(data.results).includes('code:method:pkg/models.py::User.greet'));
    const split = await py.data('cos_graph_search', { query: 'test greet' });
    assert.equal(split.results[0].uid, 'code:function:tests/test_models.py::test_greet');
  });

  test('resolve names the node the other tools would use', async () => {
    const data = await ts.data('cos_graph_resolve', { name: 'format' });
    assert.equal(data.status, 'found');
    assert.equal(data.resolved.uid, 'code:function:src/lib/format.ts::format');
    assert.equal(data.meta.resolved_from, 'exact_unique');
  });
});

describe('context', () => {
  test('neighbours are grouped by edge type with direction and counts; source on request', async () => {
    const data = await ts.data('cos_graph_context', { node: 'Calculator', include_source: true });
    assert.deepEqual(data.edge_counts, {
      contains: { out: 2, in: 1 },
      constructs: { out: 0, in: 1 },
      returns_type: { out: 0, in: 1 },
    });
    assert.deepEqual(data.edges_by_type.constructs, [
      {
        direction: 'in',
        uid: 'code:function:src/app.ts::main',
        kind: 'function',
        label: 'main',
        file_path: 'src/app.ts',
        line: 6,
        confidence: 1,
        count: 1,
        lines: [6],
      },
    ]);
    assert.deepEqual(data.neighbour_counts, data.edge_counts, 'one site per neighbour here');
    assert.equal(data.source.start_line, 5);
    assert.equal(data.source.end_line, 14);
    assert.match(data.source.text, /^export class Calculator \{/);
    assert.equal(data.summary, undefined);
    assert.equal(data.meta.completeness, 'exact');
  });

  test('depth 2 adds a summary with counts', async () => {
    const data = await ts.data('cos_graph_context', { node: 'code:function:src/app.ts::main', depth: 2 });
    assert.equal(data.summary.depth, 2);
    assert.ok(data.summary.reachable > data.edge_counts.calls.out);
    assert.ok(data.summary.by_kind.file >= 3);
  });

  test('an external node has no source', async () => {
    const data = await ts.data('cos_graph_context', { node: 'code:external:String', include_source: true });
    assert.match(data.source.unavailable, /no source/);
  });
});

describe('references', () => {
  test('empty kinds picks the defaults of the node kind and says so', async () => {
    const cls = await ts.data('cos_graph_references', { node: 'code:class:src/lib/math.ts::Calculator' });
    assert.equal(cls.meta.default_kinds_picked, true);
    assert.equal(cls.meta.node_kind, 'class');
    assert.ok(cls.kinds.includes('constructs') && cls.kinds.includes('inherits_from'));
    assert.deepEqual(
      cls.references.map((r: Item) => `${r.edge_type} ${r.uid} ${r.file_path}:${r.line}:${r.column}`),
      [
        'constructs code:function:src/app.ts::main src/app.ts:6:17',
        'returns_type code:method:src/lib/math.ts::Calculator.add src/lib/math.ts:7:19',
      ],
    );
    const file = await ts.data('cos_graph_references', { node: 'src/app.ts' });
    assert.equal(file.meta.node_kind, 'file');
    assert.deepEqual(file.by_kind, { imports: 1, links_to: 1, contains: 1, tests: 1 });
    const fn = await ts.data('cos_graph_references', { node: 'code:function:src/lib/math.ts::add' });
    assert.deepEqual(
      fn.references.map((r: Item) => `${r.edge_type} ${r.uid}`),
      ['calls code:function:src/app.ts::main', 'calls code:method:src/lib/math.ts::Calculator.add'],
    );
    const dep = await ts.data('cos_graph_references', { node: 'code:dependency:left-pad' });
    assert.deepEqual(dep.by_kind, { requires: 1, imports: 1 });
  });

  test('explicit kinds are used as given', async () => {
    const data = await ts.data('cos_graph_references', { node: 'src/app.ts', kinds: ['tests'] });
    assert.equal(data.meta.default_kinds_picked, false);
    assert.deepEqual(uids(data.references), ['code:file:src/app.test.ts']);
  });

  test('name-only calls with the same label make the count a lower bound', async () => {
    const data = await py.data('cos_graph_references', { node: 'code:method:pkg/models.py::User.greet' });
    assert.equal(data.total_count, 0);
    assert.equal(data.meta.completeness, 'lower_bound');
    assert.equal(data.meta.unresolved_calls_same_name, 1);
  });
});

describe('impact', () => {
  test('upstream tiers: direct certain dependents will break, two hops should be reviewed, docs are context', async () => {
    const data = await ts.data('cos_graph_impact', { node: 'code:function:src/lib/math.ts::add', depth: 3 });
    assert.equal(data.meta.semantic_scope, 'transitive_depth_3');
    assert.deepEqual(uids(data.tiers.will_break).sort(), [
      'code:function:src/app.ts::main',
      'code:method:src/lib/math.ts::Calculator.add',
    ]);
    assert.deepEqual(uids(data.tiers.should_review), ['code:file:src/app.test.ts']);
    assert.deepEqual(uids(data.tiers.context), ['doc:heading:README.md#fixture']);
    assert.equal(data.impacted_count, 4);
    assert.deepEqual(data.by_depth, { 1: 2, 2: 2 });
  });

  test('a file counts its members; depth limits the walk; downstream follows dependencies', async () => {
    const file = await ts.data('cos_graph_impact', { node: 'src/lib/math.ts', depth: 1 });
    assert.equal(file.meta.semantic_scope, 'transitive_depth_1');
    assert.deepEqual(uids(file.tiers.will_break).sort(), [
      'code:file:src/app.ts',
      'code:file:src/lib/index.ts',
      'code:function:src/app.ts::main',
    ]);
    const down = await ts.data('cos_graph_impact', {
      node: 'code:function:src/lib/format.ts::format',
      direction: 'downstream',
      depth: 2,
    });
    assert.deepEqual(
      uids([...down.tiers.will_break, ...down.tiers.should_review, ...down.tiers.context]).sort(),
      ['code:external:String', 'code:external:left-pad::default'],
    );
  });
});

describe('path and trace', () => {
  test('the shortest path follows edge direction within max_hops', async () => {
    const data = await ts.data('cos_graph_path', {
      source: 'src/app.test.ts',
      target: 'code:function:src/lib/math.ts::add',
    });
    assert.equal(data.found, true);
    assert.equal(data.hops, 2);
    assert.deepEqual(uids(data.nodes), [
      'code:file:src/app.test.ts',
      'code:function:src/app.ts::main',
      'code:function:src/lib/math.ts::add',
    ]);
    assert.deepEqual(
      data.edges.map((e: Item) => e.type),
      ['calls', 'calls'],
    );
    assert.equal(data.meta.source_resolved_from, 'path_prefix');
    assert.equal(data.meta.target_resolved_from, 'direct');
    const short = await ts.data('cos_graph_path', {
      source: 'src/app.test.ts',
      target: 'code:function:src/lib/math.ts::add',
      max_hops: 1,
    });
    assert.equal(short.found, false);
    const backwards = await ts.data('cos_graph_path', {
      source: 'code:function:src/lib/math.ts::add',
      target: 'src/app.test.ts',
    });
    assert.equal(backwards.found, false);
    const either = await ts.data('cos_graph_path', {
      source: 'code:function:src/lib/math.ts::add',
      target: 'src/app.test.ts',
      directed: false,
    });
    assert.equal(either.found, true);
    assert.equal(either.edges.at(-1).source, 'code:file:src/app.test.ts');
  });

  test('trace lists call steps by depth, the branches and the external targets', async () => {
    const data = await ts.data('cos_graph_trace', { entry: 'main' });
    assert.deepEqual(
      data.steps.map((s: Item) => `${s.depth} ${s.to_label}@${s.line}${s.repeat ? ' (repeat)' : ''}`),
      [
        '1 Calculator@6',
        '1 add@7',
        '1 add@7',
        '1 reset@8',
        '1 format@9',
        '2 add@8 (repeat)',
        '2 default@5',
        '2 String@5',
      ],
    );
    assert.deepEqual(data.external_targets.map((x: Item) => x.uid).sort(), [
      'code:external:String',
      'code:external:left-pad::default',
    ]);
    assert.equal(data.branches[0].uid, 'code:function:src/app.ts::main');
    assert.equal(data.branches[0].fan_out, 5);
  });
});

describe('similar and rename_plan', () => {
  test('similar finds the symbol sharing the name and says why', async () => {
    const data = await ts.data('cos_graph_similar', { node: 'code:function:src/lib/math.ts::add' });
    assert.equal(data.results[0].uid, 'code:method:src/lib/math.ts::Calculator.add');
    assert.match(data.results[0].reasons[0], /name shares 100%/);
  });

  test('rename_plan lists definitions, imports, calls, tests and docs with file, line and column', async () => {
    const data = await ts.data('cos_graph_rename_plan', { node: 'main', new_name: 'start' });
    const at = (l: Item[]) => l.map((s) => `${s.file_path}:${s.line}:${s.column}`);
    assert.deepEqual(at(data.definitions), ['src/app.ts:5:17']);
    assert.deepEqual(at(data.import_sites), ['src/app.test.ts:1:10']);
    assert.deepEqual(at(data.test_references), ['src/app.test.ts:3:1']);
    assert.deepEqual(at(data.doc_references), ['README.md:3:70']);
    assert.deepEqual(data.call_sites, []);
    assert.deepEqual(data.string_literals, []);
    assert.equal(data.total_edits, 4);
    assert.equal(data.risk, 'low');
    assert.deepEqual(
      data.suggested_order.map((s: Item) => s.action.split(' ').slice(0, 2).join(' ')),
      ['rename the', 'update the', 'update the', 'update the'],
    );
    assert.equal(data.suggested_order[0].files[0], 'src/app.ts');
  });

  test('a name already defined beside the symbol makes the rename high risk', async () => {
    const data = await ts.data('cos_graph_rename_plan', {
      node: 'code:function:src/lib/math.ts::add',
      new_name: 'Calculator',
    });
    assert.equal(data.risk, 'high');
    assert.match(data.risk_reasons[0], /already defined/);
    assert.deepEqual(
      data.call_sites.map((s: Item) => `${s.file_path}:${s.line}:${s.column} ${s.via}`),
      ['src/app.ts:7:9 calls', 'src/lib/math.ts:8:18 calls'],
    );
    assert.deepEqual(
      data.import_sites.map((s: Item) => `${s.file_path}:${s.line}:${s.column}`),
      ['src/app.ts:2:10'],
    );
  });

  test('a symbol called by name only is a high-risk lower bound; string literals are listed', async () => {
    const data = await py.data('cos_graph_rename_plan', {
      node: 'code:function:pkg/util.py::helper',
      new_name: 'assist',
    });
    assert.deepEqual(
      data.call_sites.map((s: Item) => `${s.file_path}:${s.line}:${s.column}`),
      ['main.py:8:7', 'pkg/__init__.py:5:17', 'pkg/models.py:17:16'],
    );
    const greet = await py.data('cos_graph_rename_plan', { node: 'User.greet', new_name: 'hello' });
    assert.equal(greet.risk, 'high');
    assert.equal(greet.meta.completeness, 'lower_bound');
  });
});

describe('export, cycles, dead code, stats', () => {
  test('JSON export is {nodes, edges} of the containment tree, coherent and cached per generation', async () => {
    const data = await ts.data('cos_graph_export', { max_hops: 10 });
    assert.equal(data.mode, 'containment');
    assert.equal(data.root, 'folder:.');
    assert.equal(data.node_count, data.nodes.length);
    const ids = new Set(uids(data.nodes));
    for (const e of data.edges) assert.ok(ids.has(e.source) && ids.has(e.target));
    assert.ok(ids.has('code:method:src/lib/math.ts::Calculator.reset'));
    assert.ok(data.edges.every((e: Item) => e.type === 'contains'));
    assert.equal(data.meta.cached, false);
    const again = await ts.data('cos_graph_export', { max_hops: 10 });
    assert.equal(again.meta.cached, true);
    assert.deepEqual(again.nodes, data.nodes);
  });

  test('dependencies mode around a root; max_nodes caps; mermaid and dot render', async () => {
    const deps = await ts.data('cos_graph_export', { root: 'src/app.ts', max_hops: 1 });
    assert.equal(deps.mode, 'dependencies');
    assert.deepEqual(uids(deps.nodes).sort(), [
      'code:file:src/app.test.ts',
      'code:file:src/app.ts',
      'code:file:src/lib/index.ts',
      'code:file:src/lib/math.ts',
    ]);
    const capped = await ts.data('cos_graph_export', { max_nodes: 3 });
    assert.equal(capped.node_count, 3);
    assert.equal(capped.meta.capped, true);
    const mermaid = await ts.data('cos_graph_export', {
      format: 'mermaid',
      root: 'src/lib',
      mode: 'containment',
    });
    assert.match(mermaid.text, /^flowchart LR\n/);
    assert.match(mermaid.text, /-->\|contains\|/);
    assert.equal(mermaid.nodes, undefined);
    const dot = await ts.data('cos_graph_export', {
      format: 'dot',
      mode: 'dependencies',
      edge_types: ['imports'],
    });
    assert.match(dot.text, /^digraph cos \{/);
    assert.match(dot.text, /"code:file:src\/app.ts" -> "code:file:src\/lib\/math.ts" \[label="imports"\]/);
  });

  test('the fixtures have no import cycles and no dead code', async () => {
    const cycles = await ts.data('cos_graph_cycles', {});
    assert.deepEqual(cycles.cycles, []);
    assert.equal(cycles.total_count, 0);
    const dead = await ts.data('cos_graph_dead_code', {});
    assert.deepEqual(dead.dead, []);
  });

  test('stats count nodes, edges, languages and call resolution', async () => {
    const data = await ts.data('cos_graph_stats', { top: 3 });
    assert.equal(data.nodes, 21);
    assert.equal(data.edges, 38);
    assert.equal(data.files, 7);
    assert.equal(data.nodes_by_kind.function, 3);
    assert.equal(data.edges_by_type.calls, 8);
    assert.deepEqual(data.calls, { total: 8, in_repo: 6, external: 2, unresolved: 0 });
    assert.equal(data.nodes_top.length, 3);
    const pyStats = await py.data('cos_graph_stats', {});
    assert.equal(pyStats.calls.unresolved, 2);
  });
});

describe('before the first index', () => {
  test('a tool answers with what exists and says so in meta', async () => {
    const empty = await graphHub(`${FIXTURES}ts`, { index: false });
    try {
      const data = await empty.data('cos_graph_search', { query: 'main' });
      assert.deepEqual(data.results, []);
      assert.equal(data.meta.indexed, false);
      assert.match(data.meta.note, /first index/);
      assert.equal(data.meta.freshness.last_indexed_at, null);
      const missing = await empty.call('cos_graph_context', { node: 'main' });
      assert.ok(!missing.ok);
      assert.match(missing.error.message, /still being indexed/);
      const stats = await empty.data('cos_graph_stats', {});
      assert.equal(stats.nodes, 0);
    } finally {
      await empty.close();
    }
  });
});
