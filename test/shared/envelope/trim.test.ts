import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  GRAPH_SUBGRAPH_BUDGET_CHARS,
  TOKEN_BUDGET_CHARS,
  TRIMMABLE_LIST_KEYS,
  TRUNCATION_SUFFIX,
} from '../../../shared/envelope/index.ts';
import { isTrimOf, okChecked, range, withoutMeta } from './helpers.ts';

const item = (i: number) => ({ id: i, name: `symbol_${i}`, path: `src/module_${i % 17}.ts` });

describe('the budget', () => {
  it('leaves a body that fits untouched and says truncated: false', () => {
    const data = { results: range(100).map(item), count: 100 };
    const { data: body, meta, size } = okChecked(data);
    assert.ok(size <= TOKEN_BUDGET_CHARS);
    assert.equal(meta.truncated, false);
    assert.deepEqual(withoutMeta(body), data);
  });

  for (const [script, word] of [
    ['CJK', '函数调用图谱'],
    ['Arabic', 'مرجعالدالة'],
    ['Cyrillic', 'функциявызов'],
  ] as const) {
    it(`trims ${script} text at the token budget, not at its raw length`, () => {
      const data = { results: range(3000).map((i) => ({ id: i, label: `${word}${i}` })) };
      const { text, size, meta, data: body } = okChecked(data);
      assert.equal(meta.truncated, true);
      assert.ok(size <= TOKEN_BUDGET_CHARS, `size ${size}`);
      // Far fewer raw characters than the budget: the estimate, not the length, made the cut.
      assert.ok(text.length < TOKEN_BUDGET_CHARS * 0.75, `length ${text.length}`);
      assert.ok((body.results as unknown[]).length > 0);
    });
  }
});

describe('rung 1: trimmable lists', () => {
  for (const key of TRIMMABLE_LIST_KEYS) {
    it(`tail-trims ${key} and records truncated_${key}_from/_to`, () => {
      const original = range(4000).map(item);
      const { data, meta, size } = okChecked({ [key]: original, scope: 'repo' });
      const kept = data[key] as unknown[];
      assert.ok(size <= TOKEN_BUDGET_CHARS);
      assert.equal(meta.truncated, true);
      assert.ok(kept.length > 0 && kept.length < original.length);
      assert.deepEqual(kept, original.slice(0, kept.length));
      assert.equal(meta[`truncated_${key}_from`], original.length);
      assert.equal(meta[`truncated_${key}_to`], kept.length);
      assert.equal(data.scope, 'repo');
    });
  }

  it('cuts as little as possible: one more item would not fit', () => {
    const original = range(4000).map(item);
    const { data, meta, size } = okChecked({ results: original });
    const kept = (data.results as unknown[]).length;
    assert.equal(meta.truncated_results_to, kept);
    // ASCII only, so size is the length: the next item and its comma would push it over.
    assert.ok(size + JSON.stringify(original[kept]).length + 1 > TOKEN_BUDGET_CHARS);
  });

  it('caps several lists at one common length and leaves the short ones whole', () => {
    const data = { results: range(3000).map(item), references: range(2000).map(item), steps: ['a', 'b'] };
    const { data: body, meta } = okChecked(data);
    const results = body.results as unknown[];
    const references = body.references as unknown[];
    assert.equal(results.length, references.length);
    assert.deepEqual(body.steps, ['a', 'b']);
    assert.equal(meta.truncated_steps_from, undefined);
    assert.equal(meta.truncated_results_to, results.length);
    assert.equal(meta.truncated_references_to, references.length);
  });

  it('keeps a sibling count true to what is returned and total_count true to the whole', () => {
    const { data, meta } = okChecked({ results: range(5000).map(item), count: 5000, total_count: 12_345 });
    assert.equal(data.count, (data.results as unknown[]).length);
    assert.equal(data.count, meta.truncated_results_to);
    assert.equal(data.total_count, 12_345);
  });

  it('leaves a count alone that did not track the cut list', () => {
    const { data } = okChecked({ results: range(5000).map(item), count: 7 });
    assert.equal(data.count, 7);
  });

  it('does not trim lists under keys outside the contract list', () => {
    const { data, meta } = okChecked({ items: range(10_000) });
    assert.deepEqual(data.items, range(10_000));
    assert.equal(meta.envelope_unshrinkable, true);
    assert.equal(meta.truncated, false);
  });
});

describe('rung 2: dict-of-list buckets', () => {
  it('trims edges_by_type buckets and records {kind: {from, to}}', () => {
    const data = {
      edges_by_type: { calls: range(3000).map(item), imports: range(3000).map(item), contains: [item(1)] },
    };
    const { data: body, meta, size } = okChecked(data);
    const buckets = body.edges_by_type as Record<string, unknown[]>;
    assert.ok(size <= TOKEN_BUDGET_CHARS);
    assert.equal(meta.truncated, true);
    assert.deepEqual(meta.truncated_edges_by_type, {
      calls: { from: 3000, to: buckets.calls!.length },
      imports: { from: 3000, to: buckets.imports!.length },
    });
    assert.equal(buckets.calls!.length, buckets.imports!.length);
    assert.deepEqual(buckets.calls, data.edges_by_type.calls.slice(0, buckets.calls!.length));
    assert.deepEqual(buckets.contains, [item(1)]);
  });

  it('treats any other top-level object of lists the same way, leaving its scalars alone', () => {
    const data = { by_file: { 'src/a.ts': range(20_000), 'src/b.ts': range(10), total: 20_010 } };
    const { data: body, meta } = okChecked(data);
    const byFile = body.by_file as Record<string, unknown>;
    assert.equal(byFile.total, 20_010);
    assert.deepEqual(byFile['src/b.ts'], range(10));
    assert.deepEqual(meta.truncated_by_file, {
      'src/a.ts': { from: 20_000, to: (byFile['src/a.ts'] as unknown[]).length },
    });
  });

  it('runs only after the trimmable lists were emptied', () => {
    const data = { results: range(2000).map(item), edges_by_type: { calls: range(3000).map(item) } };
    const { data: body, meta } = okChecked(data);
    assert.deepEqual(body.results, []);
    assert.equal(meta.truncated_results_to, 0);
    assert.ok(meta.truncated_edges_by_type?.calls);
  });
});

describe('rung 3: nested member lists', () => {
  it('caps the lists held by the objects of a top-level list, keyed by path', () => {
    const data = {
      processes: range(40).map((i) => ({ id: i, steps: range(300).map((j) => `step ${j}`), owner: 'x' })),
    };
    const { data: body, meta, size } = okChecked(data);
    assert.ok(size <= TOKEN_BUDGET_CHARS);
    const processes = body.processes as { id: number; steps: string[]; owner: string }[];
    // processes is trimmable, so rung 1 ran first; rung 3 only sees what rung 1 kept.
    assert.ok(isTrimOf(withoutMeta(body), data));
    const members = meta.truncated_members ?? {};
    for (const [i, process] of processes.entries()) {
      const record = members[`processes[${i}].steps`];
      if (record) assert.deepEqual(record, { from: 300, to: process.steps.length });
      else assert.equal(process.steps.length, 300);
    }
  });

  it('cuts members of a non-trimmable list, which rung 1 cannot shorten', () => {
    const data = { communities: range(30).map((i) => ({ id: i, members: range(400).map((j) => `m${j}`) })) };
    const { data: body, meta, size } = okChecked(data);
    assert.ok(size <= TOKEN_BUDGET_CHARS);
    const communities = body.communities as { id: number; members: string[] }[];
    assert.equal(communities.length, 30);
    const kept = communities[0]!.members.length;
    assert.ok(kept > 0 && kept < 400);
    for (const [i, community] of communities.entries()) {
      assert.equal(community.id, i);
      assert.deepEqual(community.members, data.communities[i]!.members.slice(0, kept));
      assert.deepEqual(meta.truncated_members?.[`communities[${i}].members`], { from: 400, to: kept });
    }
  });
});

describe('rung 4: the string safety net', () => {
  it('cuts only strings of 200+ characters, to a prefix ending …[truncated]', () => {
    const data = {
      content: 'x'.repeat(100_000),
      short: 'y'.repeat(199),
      risk_level: 'high',
      score: 0.25,
      healthy: false,
      nothing: null,
    };
    const { data: body, meta, size } = okChecked(data);
    assert.ok(size <= TOKEN_BUDGET_CHARS);
    assert.deepEqual(meta.truncated_string_fields, ['content']);
    const content = body.content as string;
    assert.ok(content.endsWith(TRUNCATION_SUFFIX));
    assert.ok(data.content.startsWith(content.slice(0, -TRUNCATION_SUFFIX.length)));
    assert.deepEqual(withoutMeta({ ...body, content: data.content }), data);
  });

  it('reaches strings at any depth and names them by path', () => {
    const doc = 'd'.repeat(20_000);
    // No member lists here: rung 3 would otherwise cut before the strings are reached.
    const data = { tags: ['ok', doc], by_id: { 'a b': { body: doc } }, tail: 'z'.repeat(250) };
    const { data: body, meta } = okChecked(data);
    assert.deepEqual(meta.truncated_string_fields, ['tags[1]', 'by_id["a b"].body']);
    assert.equal(body.tail, data.tail);
    assert.ok(isTrimOf(withoutMeta(body), data));
  });

  it('never splits a surrogate pair and trims emoji text at the token budget', () => {
    const { data: body, size } = okChecked({ content: '😀'.repeat(40_000) });
    assert.ok(size <= TOKEN_BUDGET_CHARS);
    const prefix = (body.content as string).slice(0, -TRUNCATION_SUFFIX.length);
    assert.equal(prefix.length % 2, 0);
    assert.equal(prefix, '😀'.repeat(prefix.length / 2));
  });

  it('prices characters JSON escapes by their escaped length', () => {
    const { size, meta } = okChecked({ content: '"\\\n\u0001'.repeat(20_000) });
    assert.equal(meta.truncated, true);
    assert.ok(size <= TOKEN_BUDGET_CHARS);
  });
});

describe('unshrinkable bodies', () => {
  it('flags envelope_unshrinkable when every rung ran and the body is still over budget', () => {
    const data = Object.fromEntries(range(4000).map((i) => [`key_${i}`, i]));
    const { data: body, meta, size } = okChecked(data);
    assert.ok(size > TOKEN_BUDGET_CHARS);
    assert.equal(meta.envelope_unshrinkable, true);
    assert.equal(meta.truncated, false);
    assert.deepEqual(withoutMeta(body), data);
  });

  it('returns the cuts it could make along with the flag', () => {
    const data = { results: range(5000), ids: range(20_000).map((i) => `id-${i}`) };
    const { data: body, meta } = okChecked(data);
    assert.equal(meta.envelope_unshrinkable, true);
    assert.equal(meta.truncated, true);
    assert.deepEqual(body.results, []);
  });

  it('never flags a body that fits', () => {
    assert.equal(okChecked({ a: 1 }).meta.envelope_unshrinkable, undefined);
  });
});

describe('rung 0: the graph tier', () => {
  const graph = (nodeCount: number, edgeCount: number, pad: number) => {
    const nodes = range(nodeCount).map((i) => ({
      id: `code:file:src/f${i}.ts`,
      kind: 'file',
      label: 'n'.repeat(pad),
    }));
    // Low-numbered nodes are hubs: their degree is highest.
    const edges = range(edgeCount).map((j) => ({
      source: `code:file:src/f${j % 50}.ts`,
      target: `code:file:src/f${(j * 7919) % nodeCount}.ts`,
      type: 'imports',
    }));
    return { nodes, edges };
  };

  it('uses the 5,000,000 budget: a 1 MB graph passes untouched', () => {
    const data = graph(2000, 4000, 400);
    const { data: body, meta, text } = okChecked(data);
    assert.ok(text.length > TOKEN_BUDGET_CHARS * 10);
    assert.equal(meta.truncated, false);
    assert.equal(body.nodes, data.nodes);
  });

  it('keeps the top-K nodes by degree and only edges between kept nodes', () => {
    const data = graph(20_000, 30_000, 300);
    const { data: body, meta, size } = okChecked(data);
    assert.ok(size <= GRAPH_SUBGRAPH_BUDGET_CHARS);
    const nodes = body.nodes as { id: string }[];
    const edges = body.edges as { source: string; target: string }[];
    assert.equal(meta.truncated, true);
    assert.equal(meta.truncated_subgraph, true);
    assert.equal(meta.truncated_nodes_from, 20_000);
    assert.equal(meta.truncated_nodes_to, nodes.length);
    assert.equal(meta.truncated_edges_from, 30_000);
    assert.equal(meta.truncated_edges_to, edges.length);
    assert.ok(nodes.length > 0 && nodes.length < 20_000);
    const kept = new Set(nodes.map((n) => n.id));
    for (const edge of edges) assert.ok(kept.has(edge.source) && kept.has(edge.target));
    // Every edge between two kept nodes survives, in the original order.
    assert.deepEqual(
      edges,
      data.edges.filter((e) => kept.has(e.source) && kept.has(e.target)),
    );
    // The hubs survive, and nodes keep their original order.
    for (let i = 0; i < 50; i++) assert.ok(kept.has(`code:file:src/f${i}.ts`));
    assert.deepEqual(
      nodes,
      data.nodes.filter((n) => kept.has(n.id)),
    );
  });

  it('keeps a count that tracked the nodes true, and runs the later rungs at the graph budget', () => {
    const { nodes, edges } = graph(20_000, 30_000, 300);
    const data = { nodes, edges, count: 20_000, report: 'r'.repeat(6_000_000) };
    const { data: body, meta, size } = okChecked(data);
    assert.ok(size <= GRAPH_SUBGRAPH_BUDGET_CHARS);
    assert.equal(meta.truncated_subgraph, true);
    // The graph rung could not make room for the report on its own, so it emptied the graph first.
    assert.equal(body.count, (body.nodes as unknown[]).length);
    assert.deepEqual(meta.truncated_string_fields, ['report']);
    assert.ok((body.report as string).length > 4_000_000);
  });

  it('applies only when both nodes and edges are lists; otherwise they are ordinary trimmable lists', () => {
    const { meta } = okChecked({ nodes: range(20_000).map(item) });
    assert.equal(meta.truncated_subgraph, undefined);
    assert.equal(meta.truncated_nodes_from, 20_000);
  });
});

describe('hostile keys', () => {
  it('treats a __proto__ key from JSON.parse as data in every rung', () => {
    const data = JSON.parse(
      `{"__proto__": {"__proto__": ${JSON.stringify(range(9000))}}, "groups": [{"__proto__": ${JSON.stringify(range(9000))}}], "meta": {"__proto__": {"x": 1}}}`,
    ) as Record<string, unknown>;
    const { data: body, meta, size } = okChecked(data);
    assert.ok(size <= TOKEN_BUDGET_CHARS);
    assert.equal(Object.getPrototypeOf(body), Object.prototype);
    assert.ok(Object.hasOwn(meta, 'truncated___proto__'));
    assert.ok(Object.hasOwn(meta.truncated_members ?? {}, 'groups[0].__proto__'));
  });
});
