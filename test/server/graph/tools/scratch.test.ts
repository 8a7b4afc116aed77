// Graph tools on a small repository written for the cases the fixtures do not have: import and call
// cycles, unreferenced code, names in string literals, a symlink leading out of the repository, and
// answers long enough for the agent budget to cut and the caller to page.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type GraphHub, graphHub } from './support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

let dir: string;
let outside: string;
let g: GraphHub;

const CALLERS = 400;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cos-scratch-'));
  outside = mkdtempSync(join(tmpdir(), 'cos-outside-'));
  const w = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  w(
    'src/a.ts',
    "import { b } from './b';\nexport function a(n: number): number {\n  return n > 0 ? b(n - 1) : 0;\n}\n",
  );
  w('src/b.ts', "import { c } from './c';\nexport function b(n: number): number {\n  return c(n);\n}\n");
  w('src/c.ts', "import { a } from './a';\nexport function c(n: number): number {\n  return a(n);\n}\n");
  w(
    'src/unused.ts',
    [
      'function neverCalled(): number {',
      '  return 1;',
      '}',
      'function passedAround(): number {',
      '  return 2;',
      '}',
      'export function exportedOnly(): number {',
      '  return 3;',
      '}',
      'function used(): number {',
      '  return 4;',
      '}',
      'export const table = [passedAround];',
      'export const run = () => used();',
      "export const registry = { handler: 'used' };",
      '',
    ].join('\n'),
  );
  w(
    'src/hub.ts',
    `export function target(): number {\n  return 1;\n}\n${Array.from({ length: CALLERS }, (_, i) => `export function caller${i}(): number {\n  return target();\n}\n`).join('')}`,
  );
  writeFileSync(join(outside, 'secret.ts'), 'export function secret() { return "top secret"; }\n');
  symlinkSync(join(outside, 'secret.ts'), join(dir, 'src/leak.ts'));
  g = await graphHub(dir);
});
after(async () => {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('cycles', () => {
  test('an import cycle is one group with a shortest cycle through it; calls find the call cycle', async () => {
    const data = await g.data('cos_graph_cycles', {});
    assert.equal(data.total_count, 1);
    assert.deepEqual(data.cycles[0].members, [
      'code:file:src/a.ts',
      'code:file:src/b.ts',
      'code:file:src/c.ts',
    ]);
    assert.equal(data.cycles[0].cycle.length, 3);
    assert.equal(data.meta.completeness, 'exact');
    const calls = await g.data('cos_graph_cycles', { edge_type: 'calls' });
    assert.deepEqual(calls.cycles[0].members, [
      'code:function:src/a.ts::a',
      'code:function:src/b.ts::b',
      'code:function:src/c.ts::c',
    ]);
    assert.deepEqual(calls.cycles[0].cycle, [
      'code:function:src/a.ts::a',
      'code:function:src/b.ts::b',
      'code:function:src/c.ts::c',
    ]);
    assert.equal(calls.meta.completeness, 'lower_bound');
  });
});

describe('dead code', () => {
  test('unreferenced symbols come with a confidence and the reasons for it', async () => {
    const data = await g.data('cos_graph_dead_code', { path_prefix: 'src/unused.ts' });
    const by = Object.fromEntries(data.dead.map((d: Item) => [d.label, d]));
    assert.deepEqual(Object.keys(by).sort(), ['exportedOnly', 'neverCalled', 'passedAround']);
    assert.equal(by.neverCalled.confidence, 'high');
    assert.equal(by.passedAround.confidence, 'low');
    assert.match(by.passedAround.reasons.join(' '), /appears 1 more time/);
    assert.equal(by.exportedOnly.confidence, 'medium');
    const high = await g.data('cos_graph_dead_code', { path_prefix: 'src', min_confidence: 'high' });
    assert.deepEqual(
      high.dead.map((d: Item) => d.label),
      ['neverCalled'],
    );
  });
});

describe('rename_plan', () => {
  test('string literals naming the symbol are listed and raise the risk', async () => {
    const data = await g.data('cos_graph_rename_plan', {
      node: 'code:function:src/unused.ts::used',
      new_name: 'usedNow',
    });
    assert.deepEqual(
      data.string_literals.map((s: Item) => `${s.file_path}:${s.line}:${s.column}`),
      ['src/unused.ts:15:37'],
    );
    assert.deepEqual(
      data.call_sites.map((s: Item) => `${s.file_path}:${s.line}:${s.column} ${s.via}`),
      ['src/unused.ts:14:26 calls'],
    );
    assert.equal(data.risk, 'high');
    assert.match(data.risk_reasons.join(' '), /string literal/);
  });
});

describe('source excerpts stay inside the repository', () => {
  test('a file symlinked from outside the repository is not read', async () => {
    const leak = await g.call('cos_graph_context', { node: 'src/leak.ts', include_source: true });
    if (leak.ok) {
      const data = leak.data as Item;
      assert.equal(data.source.text, undefined);
      assert.match(data.source.unavailable, /outside the repository/);
    } else {
      assert.equal(leak.error.category, 'not_found');
    }
    // The same check holds for any row that points outside, whatever put it there.
    g.hub.db
      .prepare(
        "INSERT INTO graph_nodes (uid, kind, label, qualified_name, file_path, start_line, end_line) VALUES ('code:function:../x::y', 'function', 'y', 'y', '../../../../etc/passwd', 1, 5)",
      )
      .run();
    const escaped = await g.data('cos_graph_context', {
      node: 'code:function:../x::y',
      include_source: true,
    });
    assert.ok(escaped.source.unavailable);
    assert.equal(escaped.source.text, undefined);
    g.hub.db.prepare("DELETE FROM graph_nodes WHERE uid = 'code:function:../x::y'").run();
  });
});

describe('long answers', () => {
  test('references page with next_offset; the agent budget cuts the list and says so', async () => {
    const page = await g.data('cos_graph_references', {
      node: 'code:function:src/hub.ts::target',
      limit: 150,
    });
    assert.equal(page.total_count, CALLERS);
    assert.equal(page.references.length, 150);
    assert.equal(page.meta.next_offset, 150);
    const last = await g.data('cos_graph_references', {
      node: 'code:function:src/hub.ts::target',
      limit: 150,
      offset: 300,
    });
    assert.equal(last.references.length, 100);
    assert.equal(last.meta.next_offset, null);
    const big = await g.data('cos_graph_references', {
      node: 'code:function:src/hub.ts::target',
      limit: 500,
    });
    assert.equal(big.meta.truncated, true);
    assert.equal(big.meta.truncated_references_from, CALLERS);
    assert.ok(big.meta.truncated_references_to < CALLERS);
    assert.ok(big.meta.tokens_estimated <= 8000);
    const browser = await g.call(
      'cos_graph_references',
      { node: 'code:function:src/hub.ts::target', limit: 500 },
      { budget: false },
    );
    assert.ok(browser.ok);
    assert.equal((browser.data as Item).references.length, CALLERS);
  });

  test('impact tiers are cut bucket by bucket under the budget', async () => {
    const data = await g.data('cos_graph_impact', { node: 'code:function:src/hub.ts::target', limit: 1000 });
    assert.equal(data.impacted_count, CALLERS);
    assert.equal(data.tier_counts.will_break, CALLERS);
    assert.equal(data.meta.truncated, true);
    assert.ok(data.meta.truncated_tiers.will_break.to < CALLERS);
    const first = await g.data('cos_graph_impact', { node: 'code:function:src/hub.ts::target', limit: 150 });
    assert.equal(first.tiers.will_break.length, 150);
    assert.equal(first.meta.next_offset, 150);
    const last = await g.data('cos_graph_impact', {
      node: 'code:function:src/hub.ts::target',
      limit: 150,
      offset: 300,
    });
    assert.equal(last.tiers.will_break.length, 100);
    assert.equal(last.tiers.will_break[99].uid, 'code:function:src/hub.ts::caller399');
    assert.equal(last.meta.next_offset, null);
  });

  test('a {nodes, edges} export uses the subgraph tier, not the agent budget', async () => {
    const data = await g.data('cos_graph_export', {
      root: 'code:function:src/hub.ts::target',
      max_nodes: 2000,
      max_hops: 1,
    });
    assert.ok(data.node_count > CALLERS);
    assert.equal(data.nodes.length, data.node_count);
    assert.equal(data.meta.truncated, false);
    assert.ok(data.meta.tokens_estimated > 8000);
  });
});
