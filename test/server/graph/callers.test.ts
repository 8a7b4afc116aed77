// Callers as people read them (issue 22), on test/fixtures/graph/callers: a call belongs to the
// innermost named function around it (a nested function, an arrow assigned to a const, a method),
// which keeps its enclosing function as its parent; an anonymous callback has no node of its own, so
// its calls belong to the named function it is written in. Calls through `this` and through a
// parameter or property typed with a class or interface of the graph reach the method; a parameter
// that shadows a module function is the parameter. cos_graph_impact walks from a nested function up
// to the function it is written in.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FIXTURES, type GraphHub, gitIn, graphHub } from './tools/support.ts';

let g: GraphHub;
before(async () => {
  g = await graphHub(`${FIXTURES}callers`);
});
after(() => g.close());

interface EdgeRow {
  source: string;
  target: string;
  line: number;
  col: number;
  confidence: number;
}
const edges = (type: string, where: string, ...args: unknown[]): EdgeRow[] =>
  g.hub.db
    .prepare(
      `SELECT s.uid AS source, t.uid AS target, e.line, e.col, e.confidence FROM graph_edges e
       JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
       WHERE e.edge_type = ? AND ${where} ORDER BY e.line, e.col`,
    )
    .all(type, ...args) as EdgeRow[];
const node = (uid: string) =>
  g.hub.db.prepare('SELECT uid, kind, label, start_line, end_line FROM graph_nodes WHERE uid = ?').get(uid) as
    | { uid: string; kind: string; label: string; start_line: number; end_line: number }
    | undefined;

const REPORT = 'code:function:src/report.ts::buildReport';
const FORMAT_LINE = 'code:function:src/format.ts::formatLine';

test('a nested function declaration is a caller in its own right, inside its enclosing function', () => {
  const format = node(`${REPORT}.format`);
  assert.ok(format, 'buildReport.format is a node');
  assert.equal(format.kind, 'function');
  assert.equal(format.label, 'format');
  assert.deepEqual([format.start_line, format.end_line], [10, 12]);
  assert.deepEqual(
    edges('contains', 't.uid = ?', format.uid).map((e) => e.source),
    [REPORT],
  );
  // formatLine(item.label, …) on line 11 is called from format, not from buildReport.
  const into = edges('calls', 't.uid = ?', FORMAT_LINE).map((e) => [e.source, e.line]);
  assert.deepEqual(into, [[`${REPORT}.format`, 11]]);
  // format is called by its own name from buildReport (line 16 in a callback, line 18 directly).
  assert.deepEqual(
    edges('calls', 't.uid = ?', format.uid).map((e) => [e.source, e.line, e.confidence]),
    [
      [REPORT, 16, 1],
      [REPORT, 18, 1],
    ],
  );
});

test('an arrow function assigned to a const inside a function is a caller, named by the const', () => {
  const total = node(`${REPORT}.total`);
  assert.ok(total);
  assert.equal(total.kind, 'function');
  // xs.reduce(…) is made in total; total(items) is a call of the nested function, from buildReport.
  assert.deepEqual(
    edges('calls', 's.uid = ?', total.uid).map((e) => e.target),
    ['code:external:(unresolved)::reduce'],
  );
  const calls = edges('calls', 't.uid = ?', total.uid);
  assert.deepEqual(
    calls.map((e) => [e.source, e.line, e.confidence]),
    [[REPORT, 18, 1]],
  );
});

test('an anonymous callback has no node: its calls belong to the named function it is written in', () => {
  // items.map((item) => format(item)) on line 16: the arrow is anonymous, so the caller is
  // buildReport, and `format` is the nested function of that name (bound in buildReport).
  const calls = edges('calls', 's.uid = ? AND e.line = 16', REPORT);
  assert.deepEqual(
    calls.map((e) => [e.target, e.col]),
    [
      ['code:external:(unresolved)::map', 23],
      [`${REPORT}.format`, 37],
    ],
  );
  const anonymous = g.hub.db
    .prepare("SELECT count(*) FROM graph_nodes WHERE file_path = 'src/report.ts' AND label = ''")
    .pluck()
    .get();
  assert.equal(anonymous, 0);
});

test('a parameter typed with an interface of the graph reaches the interface method', () => {
  // stores.map((s: Store) => s.get('owner')) on line 17.
  const get = 'code:method:src/store.ts::Store.get';
  assert.ok(node(get), 'interface methods are nodes');
  assert.deepEqual(
    edges('calls', 't.uid = ?', get).map((e) => [e.source, e.line, e.confidence]),
    [
      ['code:method:src/cache.ts::Cache.read', 9, 0.9],
      [REPORT, 17, 0.9],
    ],
  );
});

test('methods calling this.other(), also from an arrow inside the method, reach the method', () => {
  const from = (method: string) =>
    edges('calls', 's.uid = ?', `code:method:src/cache.ts::Cache.${method}`).map((e) => [e.target, e.line]);
  assert.deepEqual(from('read'), [
    ['code:method:src/store.ts::Store.get', 9],
    ['code:method:src/cache.ts::Cache.remember', 10],
  ]);
  // keys.forEach((key) => this.read(key)): an arrow keeps the method's `this`.
  assert.deepEqual(from('warm'), [
    ['code:external:(unresolved)::forEach', 15],
    ['code:method:src/cache.ts::Cache.read', 15],
  ]);
  // A plain function has its own `this`: onEvict's inner function does not call Cache.read.
  assert.deepEqual(
    from('onEvict').filter(([t]) => String(t).startsWith('code:method:')),
    [],
  );
});

test('a parameter that shadows a module function is the parameter, not that function', () => {
  const calls = edges('calls', "s.uid = 'code:function:src/report.ts::applyFormatter'");
  assert.deepEqual(
    calls.map((e) => e.target),
    ['code:external:(unresolved)::formatLine'],
  );
});

test('two helpers of one name in two callbacks are two nodes, each called by its own callback', () => {
  const first = node('code:function:test/report.test.ts::setup');
  const second = node('code:function:test/report.test.ts::setup@2');
  assert.ok(first && second);
  assert.equal(second.label, 'setup');
  assert.deepEqual([first.start_line, second.start_line], [6, 11]);
  assert.deepEqual(
    edges('calls', "t.uid LIKE 'code:function:test/report.test.ts::setup%'").map((e) => [e.target, e.line]),
    [
      [first.uid, 7],
      [second.uid, 12],
    ],
  );
});

test('impact walks from a nested caller up to the function it is written in, and on to its callers', async () => {
  const d = await g.data('cos_graph_impact', { node: FORMAT_LINE, depth: 3 });
  const tier = (t: 'will_break' | 'should_review' | 'context') =>
    d.tiers[t].map((i: { uid: string; depth: number; via: string }) => [i.uid, i.depth, i.via]);
  // format calls formatLine; buildReport does not, but holds format: it is reached with it.
  assert.deepEqual(
    tier('will_break')
      .filter(([uid]: [string]) => uid.startsWith(REPORT))
      .sort(),
    [
      [REPORT, 1, 'contains'],
      [`${REPORT}.format`, 1, 'calls'],
    ],
  );
  assert.ok(
    tier('should_review').some(
      ([uid, depth]: [string, number]) => uid === 'code:function:src/main.ts::main' && depth === 2,
    ),
    JSON.stringify(d.tiers),
  );

  // From the nested function itself: its enclosing function changes with it, so buildReport's callers
  // (main, the two test helpers) are direct dependents.
  const nested = await g.data('cos_graph_impact', { node: `${REPORT}.format`, depth: 2 });
  assert.deepEqual(nested.tiers.will_break.map((i: { uid: string }) => i.uid).sort(), [
    'code:function:src/main.ts::main',
    'code:function:test/report.test.ts::setup',
    'code:function:test/report.test.ts::setup@2',
  ]);
  // And downstream, a function relies on what its nested functions call.
  const down = await g.data('cos_graph_impact', { node: REPORT, direction: 'downstream', depth: 1 });
  const reached = [...down.tiers.will_break, ...down.tiers.should_review].map((i: { uid: string }) => i.uid);
  assert.ok(reached.includes(FORMAT_LINE), JSON.stringify(reached));
});

test('two hops away, the enclosing function is still reached at the depth of the nested one', async () => {
  // pad is called only by formatLine; format (nested in buildReport) calls formatLine. From pad:
  // formatLine at 1, then format at 2 and buildReport with it (at 2, through contains), then main at 3.
  const d = await g.data('cos_graph_impact', { node: 'code:function:src/format.ts::pad', depth: 3 });
  const all = new Map<string, [number, string]>(
    [...d.tiers.will_break, ...d.tiers.should_review, ...d.tiers.context].map(
      (i: { uid: string; depth: number; via: string }) => [i.uid, [i.depth, i.via]],
    ),
  );
  assert.deepEqual(all.get(FORMAT_LINE), [1, 'calls']);
  assert.deepEqual(all.get(`${REPORT}.format`), [2, 'calls']);
  assert.deepEqual(all.get(REPORT), [2, 'contains']);
  assert.deepEqual(all.get('code:function:src/main.ts::main'), [3, 'calls']);
});

test('an edit inside a nested function changes it, and the callers of its enclosing function depend on it', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'cos-callers-changes-'));
  const git = (...args: string[]) => gitIn(repo, ...args);
  cpSync(`${FIXTURES}callers`, repo, { recursive: true });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'fixture');
  const h = await graphHub(repo);
  try {
    const report = join(repo, 'src/report.ts');
    writeFileSync(
      report,
      readFileSync(report, 'utf8').replace(
        'formatLine(item.label, item.amount)',
        'formatLine(item.label.trim(), item.amount)',
      ),
    );
    const data = await h.data('cos_graph_detect_changes', {});
    assert.deepEqual(
      data.changes.symbols.map((s: { uid: string }) => s.uid),
      [`${REPORT}.format`],
    );
    const tiers = Object.fromEntries(
      data.affected.consumers.map((c: { uid: string; tier: string }) => [c.uid, c.tier]),
    );
    assert.equal(tiers['code:function:src/main.ts::main'], 'will_break', JSON.stringify(tiers));
    const symbol = data.changes.symbols[0];
    assert.ok(symbol.will_break.includes('code:function:src/main.ts::main'), JSON.stringify(symbol));
  } finally {
    await h.close();
    rmSync(repo, { recursive: true, force: true });
  }
});

test('a trace from a function follows the calls of the functions nested in it, from them', async () => {
  // schedule hands its nested tick to run(); tick calls main, which calls buildReport.
  const d = await g.data('cos_graph_trace', { entry: 'code:function:src/main.ts::schedule', max_depth: 2 });
  const steps = d.steps.map((s: { depth: number; from: string; to: string }) => [s.depth, s.from, s.to]);
  assert.deepEqual(
    steps.filter(([depth]: [number]) => depth === 1),
    [
      [1, 'code:function:src/main.ts::schedule.tick', 'code:function:src/main.ts::main'],
      [1, 'code:function:src/main.ts::schedule', 'code:external:(unresolved)::run'],
    ],
  );
  assert.ok(
    steps.some(
      ([depth, from, to]: [number, string, string]) =>
        depth === 2 && from === 'code:function:src/main.ts::main' && to === REPORT,
    ),
    JSON.stringify(steps),
  );
});

test('dead code leaves interface methods out, and a nested function handed on as a value is low confidence', async () => {
  const d = await g.data('cos_graph_dead_code', { limit: 500 });
  const dead = new Map(d.dead.map((x: { uid: string; confidence: string }) => [x.uid, x.confidence]));
  // Store.set is called by nobody the graph can see, but it is the interface MemoryStore implements.
  assert.equal(dead.has('code:method:src/store.ts::Store.set'), false, JSON.stringify([...dead]));
  // tick is never called by name: run(tick) hands it on, and its name in the file says so.
  assert.equal(dead.get('code:function:src/main.ts::schedule.tick'), 'low');
});
