// cos_graph_detect_changes on a real git repository (a copy of the TS fixture): the working tree against
// HEAD and a commit range, mapped to changed symbols, their consumers and the board tasks that name the
// files; refs that could read as options are refused before git runs.
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Indexer } from '../../../../server/graph/indexer.ts';
import { FIXTURES, type GraphHub, gitIn, graphHub } from './support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

let repo: string;
let g: GraphHub;
let first: string;
const git = (...args: string[]) => gitIn(repo, ...args);

before(async () => {
  repo = mkdtempSync(join(tmpdir(), 'cos-changes-'));
  cpSync(`${FIXTURES}ts`, repo, { recursive: true });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'fixture');
  first = git('rev-parse', 'HEAD');
  g = await graphHub(repo);
});
after(async () => {
  await g.close();
  rmSync(repo, { recursive: true, force: true });
});

test('a clean working tree has no changes and no risk', async () => {
  const data = await g.data('cos_graph_detect_changes', {});
  assert.equal(data.mode, 'working_tree');
  assert.deepEqual(data.changes.files, []);
  assert.equal(data.risk_level, 'none');
});

test('an edited function maps to its symbol, its consumers in tiers and the tasks naming its file', async () => {
  const math = join(repo, 'src/lib/math.ts');
  writeFileSync(math, readFileSync(math, 'utf8').replace('return a + b;', 'return b + a;'));
  writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
  try {
    // Board rows as the tasks module indexes them (its migration made the table).
    const task = g.hub.db.prepare(
      `INSERT INTO tasks (id, key, path, title, status, kind, priority, priority_rank, refs, version, body, content_hash, indexed_at)
       VALUES (?, ?, ?, ?, ?, 'feature', 'P2', 2, ?, 1, '', 'h', '2026-11-30')`,
    );
    task.run(7, 'TASK-7', 'TASK-7.md', 'Speed up math', 'in_progress', '["src/lib/math.ts:1"]');
    task.run(8, 'TASK-8', 'TASK-8.md', 'Docs', 'icebox', '["README.md"]');
    // Finished, in the board's own words: naming the file does not make it an open task.
    task.run(9, 'TASK-9', 'TASK-9.md', 'Library', 'archive', '["src/lib"]');
    const data = await g.data('cos_graph_detect_changes', {});
    assert.deepEqual(
      data.changes.files.map((f: Item) => `${f.status} ${f.path}`),
      ['modified src/lib/math.ts', 'added notes.txt'],
    );
    assert.deepEqual(
      data.changes.symbols.map((s: Item) => s.uid),
      ['code:function:src/lib/math.ts::add'],
    );
    const tiers = Object.fromEntries(data.affected.consumers.map((c: Item) => [c.uid, c.tier]));
    assert.deepEqual(tiers, {
      'code:function:src/app.ts::main': 'will_break',
      'code:method:src/lib/math.ts::Calculator.add': 'will_break',
      'code:file:src/app.test.ts': 'should_review',
      'doc:heading:README.md#fixture': 'context',
    });
    assert.deepEqual(
      data.affected.tasks.map((t: Item) => `${t.id} ${t.matched.join(',')}`),
      ['TASK-7 src/lib/math.ts:1', 'TASK-9 src/lib'],
    );
    assert.equal(data.risk_level, 'medium');
    assert.match(data.risk_reasons.join(' '), /direct dependent/);
    assert.match(data.risk_reasons.join(' '), /\b1 open task references\b/);
    assert.deepEqual(
      data.affected.tests.map((t: Item) => t.path),
      ['src/app.test.ts'],
    );
    assert.equal(data.meta.semantic_scope, 'transitive_depth_2');
    assert.equal(data.meta.tasks_board, 'present');
  } finally {
    git('checkout', '-q', '--', '.');
    rmSync(join(repo, 'notes.txt'));
    g.hub.db.exec('DELETE FROM tasks');
  }
});

test('a commit range maps the lines it changed; a manifest change is high risk', async () => {
  appendFileSync(join(repo, 'src/lib/format.ts'), '\nexport function extra(): number {\n  return 1;\n}\n');
  writeFileSync(
    join(repo, 'package.json'),
    '{ "name": "fixture-ts", "dependencies": { "left-pad": "1.3.1" } }\n',
  );
  git('commit', '-qam', 'extra');
  await new Indexer({ repo, db: g.hub.db }).run({});
  const data = await g.data('cos_graph_detect_changes', { base: first, head: 'HEAD' });
  assert.equal(data.mode, 'range');
  assert.deepEqual(data.changes.files.map((f: Item) => f.path).sort(), ['package.json', 'src/lib/format.ts']);
  assert.ok(data.changes.symbols.some((s: Item) => s.uid === 'code:function:src/lib/format.ts::extra'));
  assert.equal(data.risk_level, 'high');
  assert.match(data.risk_reasons[0], /project configuration/);
  const range = await g.data('cos_graph_detect_changes', { base: `${first}..HEAD` });
  assert.equal(range.summary.files, 2);
});

test('bad refs are refused: option-like by the schema, unknown by git', async () => {
  const option = await g.call('cos_graph_detect_changes', { base: '--output=/tmp/x' });
  assert.ok(!option.ok);
  assert.equal(option.error.category, 'validation');
  const unknown = await g.call('cos_graph_detect_changes', { base: 'no-such-branch' });
  assert.ok(!unknown.ok);
  assert.equal(unknown.error.category, 'validation');
  const headOnly = await g.call('cos_graph_detect_changes', { head: 'HEAD' });
  assert.ok(!headOnly.ok && headOnly.error.category === 'validation');
});

test('without the board table the tasks list is empty and meta says so', async () => {
  g.hub.db.exec('ALTER TABLE tasks RENAME TO tasks_away');
  try {
    writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
    const data = await g.data('cos_graph_detect_changes', {});
    assert.deepEqual(data.affected.tasks, []);
    assert.equal(data.meta.tasks_board, 'absent');
  } finally {
    rmSync(join(repo, 'notes.txt'));
    g.hub.db.exec('ALTER TABLE tasks_away RENAME TO tasks');
  }
});

test('outside a git repository the tool is unavailable', async () => {
  const plain = mkdtempSync(join(tmpdir(), 'cos-nogit-'));
  const other = await graphHub(plain);
  try {
    const env = await other.call('cos_graph_detect_changes', {});
    assert.ok(!env.ok);
    assert.equal(env.error.category, 'unavailable');
  } finally {
    await other.close();
    rmSync(plain, { recursive: true, force: true });
  }
});
