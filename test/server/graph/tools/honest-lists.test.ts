// Every list a graph tool cuts by its own limit says how many there are and how to get the rest, on a
// repository built so the numbers could be wrong: more callers than a page, more same-named symbols than
// the resolver's first ranking, more importers than dead_code reads, and a change wider than one page.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Indexer } from '../../../../server/graph/indexer.ts';
import { type GraphHub, gitIn, graphHub } from './support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

let dir: string;
let g: GraphHub;

const CALLERS = 69;
/** Same-named methods: more than the 200 the resolver ranks first. */
const HANDLERS = 230;
const PARSERS = 40;

const git = (...args: string[]) => gitIn(dir, ...args);

const pad = (i: number) => String(i).padStart(3, '0');

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cos-honest-'));
  const w = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  w(
    'src/target.ts',
    [
      'function helperA(): number {',
      '  return 1;',
      '}',
      'function helperB(): number {',
      '  return 2;',
      '}',
      'export function target(): number {',
      '  return helperA() + helperB();',
      '}',
      '',
    ].join('\n'),
  );
  w(
    'src/callers.ts',
    `import { target } from './target';\n${Array.from(
      { length: CALLERS },
      (_, i) => `export function caller${pad(i)}(): number {\n  return target();\n}\n`,
    ).join('')}`,
  );
  // Each handler file imports the shared module (for `used`), none mentions `lonely`.
  w(
    'src/lib/shared.ts',
    'export const used = 1;\nfunction lonely(): number {\n  return 2;\n}\nexport const keep = [used];\n',
  );
  w('src/lib/small.ts', 'export const tiny = 1;\nfunction alone(): number {\n  return 3;\n}\n');
  for (let i = 0; i < 3; i++)
    w(`src/small-user${i}.ts`, "import { tiny } from './lib/small';\nexport const t = tiny;\n");
  for (let i = 0; i < HANDLERS; i++)
    w(
      `src/handlers/h${pad(i)}.ts`,
      `import { used } from '../lib/shared';\nexport class Handler${pad(i)} {\n  handle(): number {\n    return used;\n  }\n}\n`,
    );
  w(
    'src/parse.ts',
    `function readToken(): string {\n  return 'x';\n}\n${Array.from(
      { length: PARSERS },
      (_, i) => `export function parseUser${pad(i)}(): string {\n  return readToken();\n}\n`,
    ).join('')}`,
  );
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'fixture');
  g = await graphHub(dir);
});
after(async () => {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cos_graph_context', () => {
  const node = 'code:function:src/target.ts::target';

  test('a cut edge type says listed of total from where, and next_offset pages to the end', async () => {
    const first = await g.data('cos_graph_context', { node, edge_types: ['calls'] });
    assert.equal(first.edge_counts.calls.in, CALLERS);
    assert.equal(first.edge_counts.calls.out, 2);
    const callers = first.edges_by_type.calls.filter((e: Item) => e.direction === 'in');
    assert.equal(callers.length, 25);
    assert.equal(first.edges_by_type.calls.filter((e: Item) => e.direction === 'out').length, 2);
    assert.deepEqual(first.omitted, [
      { edge_type: 'calls', direction: 'in', listed: 25, total: CALLERS, from: 0 },
    ]);
    assert.equal(first.meta.next_offset, 25);

    const seen = new Set<string>(callers.map((e: Item) => e.uid));
    let offset = first.meta.next_offset;
    let pages = 1;
    while (offset !== null) {
      const page = await g.data('cos_graph_context', { node, edge_types: ['calls'], offset });
      const inc = page.omitted.find((o: Item) => o.direction === 'in');
      const listed = page.edges_by_type.calls?.filter((e: Item) => e.direction === 'in') ?? [];
      assert.equal(inc.from, offset);
      assert.equal(inc.listed, Math.min(25, CALLERS - offset));
      assert.equal(listed.length, inc.listed);
      for (const e of listed) {
        assert.ok(!seen.has(e.uid), `${e.uid} listed twice`);
        seen.add(e.uid);
      }
      offset = page.meta.next_offset;
      pages++;
    }
    assert.equal(pages, 3);
    assert.equal(seen.size, CALLERS);
  });

  test('per_type covering every edge leaves nothing omitted and no next page', async () => {
    const all = await g.data('cos_graph_context', { node, per_type: 100 });
    assert.deepEqual(all.omitted, []);
    assert.equal(all.meta.next_offset, null);
    assert.equal(all.edges_by_type.calls.length, CALLERS + 2);
  });
});

describe('ambiguous names', () => {
  test('an ambiguous name counts every equally good candidate, past the first ranking', async () => {
    const data = await g.data('cos_graph_context', { node: 'handle' });
    assert.equal(data.ambiguous, true);
    assert.equal(data.total, HANDLERS);
    assert.equal(data.results.length, 10);
    for (const c of data.results) assert.equal(c.label, 'handle');
  });

  test('cos_graph_resolve: total and results as many as limit asks', async () => {
    const data = await g.data('cos_graph_resolve', { name: 'handle', limit: 30 });
    assert.equal(data.status, 'ambiguous');
    assert.equal(data.total, HANDLERS);
    assert.equal(data.results.length, 30);
    const one = await g.data('cos_graph_resolve', { name: 'parseUser007' });
    assert.equal(one.status, 'found');
    assert.equal(one.resolved.uid, 'code:function:src/parse.ts::parseUser007');
    assert.ok(one.total >= 1 && one.total >= one.results.length);
  });
});

describe('cos_graph_similar', () => {
  test('total_count counts every scored symbol; pages cover them once each', async () => {
    const node = 'code:function:src/parse.ts::parseUser000';
    const all = await g.data('cos_graph_similar', { node, limit: 100 });
    // The other parsers share its name's words and its callee.
    assert.ok(all.total_count >= PARSERS - 1, `total_count ${all.total_count}`);
    assert.equal(all.results.length, all.total_count);
    assert.equal(all.meta.next_offset, null);
    const uids: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: Item = await g.data('cos_graph_similar', { node, limit: 7, offset });
      assert.equal(page.total_count, all.total_count);
      assert.equal(page.results.length, Math.min(7, all.total_count - offset));
      uids.push(...page.results.map((r: Item) => r.uid));
      offset = page.meta.next_offset;
    }
    assert.deepEqual(
      uids,
      all.results.map((r: Item) => r.uid),
    );
  });
});

describe('cos_graph_dead_code', () => {
  test('a file imported by more files than are read lowers confidence and says how many were read', async () => {
    const data = await g.data('cos_graph_dead_code', { path_prefix: 'src/lib' });
    const lonely = data.dead.find((d: Item) => d.label === 'lonely');
    const alone = data.dead.find((d: Item) => d.label === 'alone');
    assert.ok(lonely && alone, JSON.stringify(data.dead.map((d: Item) => d.label)));
    assert.equal(alone.confidence, 'high');
    assert.equal(lonely.confidence, 'medium');
    assert.ok(
      lonely.reasons.some((r: string) =>
        r.startsWith(`${HANDLERS} files import its file; only the first 200`),
      ),
      lonely.reasons.join('; '),
    );
  });
});

describe('cos_graph_detect_changes', () => {
  before(async () => {
    const t = join(dir, 'src/target.ts');
    writeFileSync(
      t,
      readFileSync(t, 'utf8').replace('return helperA() + helperB();', 'return helperB() + helperA();'),
    );
    for (let i = 0; i < 5; i++) {
      const f = join(dir, `src/handlers/h${pad(i)}.ts`);
      writeFileSync(f, readFileSync(f, 'utf8').replace('return used;', 'return used + 1;'));
    }
    await new Indexer({ repo: dir, db: g.hub.db }).run({});
  });

  test('a changed symbol with more direct dependents than it lists gives their count', async () => {
    const data = await g.data('cos_graph_detect_changes', {});
    const target = data.changes.symbols.find((s: Item) => s.uid === 'code:function:src/target.ts::target');
    assert.ok(target, JSON.stringify(data.changes.symbols.map((s: Item) => s.uid)));
    assert.equal(target.will_break.length, 25);
    assert.equal(target.will_break_count, CALLERS);
    assert.ok(target.dependents >= CALLERS);
  });

  test('every list pages from offset to the end; summary holds each whole count', async () => {
    const whole = await g.data('cos_graph_detect_changes', { limit: 2000 });
    assert.equal(whole.summary.files, 6);
    assert.equal(whole.changes.files.length, 6);
    assert.equal(whole.affected.consumers.length, whole.summary.consumers);
    assert.equal(whole.summary.consumers, CALLERS);
    assert.equal(whole.summary.symbols, 6);
    assert.equal(whole.meta.next_offset, null);
    const limit = 4;
    const got = { files: [] as string[], symbols: [] as string[], consumers: [] as string[] };
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const page: Item = await g.data('cos_graph_detect_changes', { limit, offset });
      assert.deepEqual(page.summary, whole.summary);
      assert.ok(page.affected.consumers.length <= limit);
      got.files.push(...page.changes.files.map((f: Item) => f.path));
      got.symbols.push(...page.changes.symbols.map((s: Item) => s.uid));
      got.consumers.push(...page.affected.consumers.map((c: Item) => c.uid));
      offset = page.meta.next_offset;
      pages++;
    }
    assert.equal(pages, Math.ceil(whole.summary.consumers / limit));
    assert.deepEqual(
      got.files,
      whole.changes.files.map((f: Item) => f.path),
    );
    assert.deepEqual(
      got.symbols,
      whole.changes.symbols.map((s: Item) => s.uid),
    );
    assert.deepEqual(
      got.consumers,
      whole.affected.consumers.map((c: Item) => c.uid),
    );
  });
});
