// Tasks and commits on a real git repository made here: commits name tasks in subjects and trailers, a
// task branch is merged, another is still open, files are renamed. cos_task_history lists a task's
// commits among its events, cos_task_changes gives its whole change through the detect-changes engine.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../../server/config.ts';
import { Indexer } from '../../../server/graph/indexer.ts';
import { createHub, type Hub } from '../../../server/hub.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import { runTool } from '../../../server/tools/run.ts';
import type { Envelope } from '../../../shared/envelope/index.ts';
import { makeRepo, type TestRepo } from '../git/repo.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Any = any;

const task = (id: string, title: string, status = 'in_progress', refs: string[] = []) =>
  [
    '---',
    `id: ${id}`,
    `title: ${title}`,
    `status: ${status}`,
    'kind: feature',
    'priority: P2',
    `references: [${refs.join(', ')}]`,
    'version: 1',
    '---',
    '',
    '## Outcome',
    '',
    `${title}.`,
    '',
  ].join('\n');

let repo: TestRepo;
let hub: Hub;
let state: string;
const sha: Record<string, string> = {};

async function call(name: string, input: unknown, transport: 'mcp' | 'rest' = 'rest'): Promise<Envelope> {
  const tool = catalog.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return runTool(tool, input, { applyBudget: transport === 'mcp', ctx: hub.context({ transport }) });
}
async function data(name: string, input: unknown, transport: 'mcp' | 'rest' = 'rest'): Promise<Any> {
  const env = await call(name, input, transport);
  if (!env.ok) throw new Error(`${name}: ${env.error.category}: ${env.error.message}`);
  return env.data;
}

before(async () => {
  repo = makeRepo('cos-commits-');
  repo.write(
    'src/lib/math.ts',
    'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n',
  );
  repo.write(
    'src/app.ts',
    "import { add } from './lib/math.ts';\n\nexport function main(): number {\n  return add(1, 2);\n}\n",
  );
  repo.write(
    'src/lib/math.test.ts',
    "import { add } from './math.ts';\n\nexport function checkAdd(): boolean {\n  return add(1, 1) === 2;\n}\n",
  );
  repo.write('src/lib/format.ts', 'export function fmt(n: number): string {\n  return String(n);\n}\n');
  repo.write(
    'docs/tasks/TASK-12-speed-up-add.md',
    task('TASK-12', 'Speed up add', 'in_progress', ['src/lib/math.ts']),
  );
  repo.write(
    'docs/tasks/TASK-13-rename-format.md',
    task('TASK-13', 'Rename format', 'complete', ['src/lib']),
  );
  repo.write('docs/tasks/TASK-14-tidy-sub.md', task('TASK-14', 'Tidy sub'));
  repo.write('docs/tasks/TASK-120-other.md', task('TASK-120', 'Other'));
  repo.write('docs/tasks/TASK-15-nothing-yet.md', task('TASK-15', 'Nothing yet', 'icebox'));
  sha.initial = repo.commit('Initial layout', '2026-11-02T09:00:00Z');

  repo.write(
    'src/lib/math.ts',
    'export function add(a: number, b: number): number {\n  return b + a;\n}\n\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n',
  );
  sha.add = repo.commit('Swap the operands of add\n\nTask: TASK-12', '2026-11-03T10:00:00Z', 'Bea');
  repo.write(
    'src/app.ts',
    "import { add } from './lib/math.ts';\n\nexport function main(): number {\n  return add(2, 1);\n}\n",
  );
  sha.other = repo.commit('TASK-120: main adds the other way round', '2026-11-03T11:00:00Z');
  repo.write(
    'src/app.ts',
    "import { add } from './lib/math.ts';\n\nexport function main(): number {\n  return add(2, 2);\n}\n",
  );
  sha.refs = repo.commit('Main adds twos\n\nRefs TASK-12', '2026-11-03T12:00:00Z', 'Bea');

  // TASK-13: a branch with a rename and a commit that names no task, merged with --no-ff.
  repo.git('checkout', '-q', '-b', 'task/TASK-13-rename-format');
  repo.git('mv', 'src/lib/format.ts', 'src/lib/fmt.ts');
  sha.rename = repo.commit('Rename format.ts to fmt.ts', '2026-11-04T09:00:00Z', 'Cy');
  repo.write('src/lib/fmt.ts', 'export function fmt(n: number): string {\n  return "" + n;\n}\n');
  sha.fmt = repo.commit('fmt uses a template', '2026-11-04T09:30:00Z', 'Cy');
  repo.git('checkout', '-q', 'main');
  repo.git(
    'merge',
    '-q',
    '--no-ff',
    'task/TASK-13-rename-format',
    '-m',
    "Merge branch 'task/TASK-13-rename-format'",
  );
  sha.merge = repo.git('rev-parse', 'HEAD');

  // TASK-14: an open branch, not merged.
  repo.git('checkout', '-q', '-b', 'task/TASK-14-tidy-sub');
  repo.write(
    'src/lib/math.ts',
    'export function add(a: number, b: number): number {\n  return b + a;\n}\n\nexport function sub(a: number, b: number): number {\n  return -(b - a);\n}\n',
  );
  sha.sub = repo.commit('Tidy sub', '2026-11-05T09:00:00Z', 'Dee');
  repo.git('checkout', '-q', 'main');

  state = mkdtempSync(join(tmpdir(), 'cos-commits-state-'));
  const config = loadConfig({ COS_REPO: repo.dir, COS_STATE_DIR: state }, {}, repo.dir);
  hub = createHub(config, { logSync: true });
  hub.services.board.start();
  await new Indexer({ repo: repo.dir, db: hub.db }).run({});
});
after(async () => {
  await hub.close();
  rmSync(state, { recursive: true, force: true });
  repo.remove();
});

test('history with include_commits lists the commits naming the task, never those of TASK-120', async () => {
  const plain = await data('cos_task_history', { id: 'TASK-12' });
  assert.ok(plain.events.every((e: Any) => e.type !== 'commit'));
  const h = await data('cos_task_history', { id: 'TASK-12', include_commits: true });
  const commits = h.events.filter((e: Any) => e.type === 'commit');
  assert.deepEqual(
    commits.map((e: Any) => [e.detail.sha, e.detail.link, e.detail.author, e.at]),
    [
      [sha.add, 'trailer', 'Bea', '2026-11-03T10:00:00.000Z'],
      [sha.refs, 'trailer', 'Bea', '2026-11-03T12:00:00.000Z'],
    ],
  );
  assert.equal(commits[0].detail.subject, 'Swap the operands of add');
  assert.deepEqual(commits[0].detail.files, ['src/lib/math.ts']);
  assert.equal(commits[0].source, 'git');
});

test('a merged task branch links the merge and the commits it brought, the rename shown as old → new', async () => {
  const h = await data('cos_task_history', { id: '13', include_commits: true });
  const commits = h.events.filter((e: Any) => e.type === 'commit');
  assert.deepEqual(
    commits.map((e: Any) => [e.detail.sha, e.detail.link]),
    [
      [sha.rename, 'merge'],
      [sha.fmt, 'merge'],
      [sha.merge, 'message'],
    ],
  );
  assert.deepEqual(commits[0].detail.files, ['src/lib/format.ts → src/lib/fmt.ts']);
});

test('history pages show each commit once, after the event it followed', async () => {
  // Board events now (after the commits' 2026-11 times): every commit sits before them, on the first page.
  await data('cos_work_log_append', { id: 'TASK-12', text: 'one' });
  await data('cos_work_log_append', { id: 'TASK-12', text: 'two' });
  const seen: string[] = [];
  let after = 0;
  for (let page = 0; page < 10; page++) {
    const h = await data('cos_task_history', {
      id: 'TASK-12',
      include_commits: true,
      limit: 1,
      after_seq: after,
    });
    for (const e of h.events) seen.push(e.type === 'commit' ? e.detail.sha : `event ${e.seq}`);
    if (h.next_after_seq === null) break;
    after = h.next_after_seq;
  }
  const commits = seen.filter((s) => !s.startsWith('event'));
  assert.deepEqual(commits, [sha.add, sha.refs]);
  assert.equal(seen.length, commits.length + seen.filter((s) => s.startsWith('event')).length);
});

test('an open task branch is the change: base...branch, with symbols, tiers, tests and risk', async () => {
  const c = await data('cos_task_changes', { id: 'TASK-14' });
  assert.equal(c.mode, 'branch');
  assert.equal(c.base, 'main');
  assert.equal(c.head, 'task/TASK-14-tidy-sub');
  assert.deepEqual(c.branches, ['task/TASK-14-tidy-sub']);
  assert.deepEqual(
    c.commits.map((x: Any) => [x.sha, x.link]),
    [[sha.sub, 'branch']],
  );
  assert.deepEqual(
    c.changes.files.map((f: Any) => `${f.status} ${f.path}`),
    ['modified src/lib/math.ts'],
  );
  const hunk = c.changes.files[0].hunks[0];
  assert.ok(hunk.lines.includes('-  return a - b;') && hunk.lines.includes('+  return -(b - a);'));
  assert.deepEqual(
    c.changes.symbols.map((s: Any) => s.uid),
    ['code:function:src/lib/math.ts::sub'],
  );
  // The branch is not checked out: the graph is main's, so the symbols are located roughly, and it says so.
  assert.match(c.risk_reasons.join('\n'), /differs? in the working tree/);
  assert.deepEqual(c.changes.symbols[0].tests, ['src/lib/math.test.ts']);
  assert.deepEqual(
    c.affected.tests.map((t: Any) => t.path),
    ['src/lib/math.test.ts'],
  );
});

test('linked commits are the change: from before the first to the last, foreign commits called out', async () => {
  const c = await data('cos_task_changes', { id: 'TASK-12' });
  assert.equal(c.mode, 'commits');
  assert.equal(c.base, sha.initial);
  assert.equal(c.head, sha.refs);
  assert.deepEqual(c.changes.files.map((f: Any) => f.path).sort(), ['src/app.ts', 'src/lib/math.ts']);
  const add = c.changes.symbols.find((s: Any) => s.uid === 'code:function:src/lib/math.ts::add');
  assert.ok(add, 'add changed');
  // main changed in the task too (a changed symbol, not a dependent); the test calling add will break.
  assert.ok(c.changes.symbols.some((s: Any) => s.uid === 'code:function:src/app.ts::main'));
  assert.deepEqual(add.will_break, ['code:function:src/lib/math.test.ts::checkAdd']);
  assert.deepEqual(add.tests, ['src/lib/math.test.ts']);
  assert.match(c.risk_reasons.join('\n'), /1 commit not linked to TASK-12 that touches/);
  assert.equal(c.risk_level, 'medium');
  // Its own board entry names math.ts: it is an open task touching the files.
  assert.ok(c.affected.tasks.some((t: Any) => t.id === 'TASK-12'));
});

test('the commits list pages with the report: its total, and next_offset to the rest', async () => {
  const whole = await data('cos_task_changes', { id: 'TASK-12' });
  assert.ok(whole.commits_total >= 2, 'TASK-12 has several linked commits');
  assert.equal(whole.commits.length, whole.commits_total);
  const seen: string[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await data('cos_task_changes', { id: 'TASK-12', limit: 1, offset });
    assert.equal(page.commits_total, whole.commits_total);
    assert.ok(page.commits.length <= 1);
    seen.push(...page.commits.map((x: Any) => x.sha));
    offset = page.meta.next_offset;
  }
  assert.deepEqual(
    seen,
    whole.commits.map((x: Any) => x.sha),
  );
});

test('a merge that brought the task branch in is the change against its first parent, rename included', async () => {
  const c = await data('cos_task_changes', { id: 'TASK-13' });
  assert.equal(c.mode, 'commits');
  assert.equal(c.head, sha.merge);
  const fmt = c.changes.files.find((f: Any) => f.path === 'src/lib/fmt.ts');
  assert.equal(fmt.status, 'renamed');
  assert.equal(fmt.old_path, 'src/lib/format.ts');
  assert.match(c.risk_reasons.join('\n'), /a renamed file: whoever imports the old path breaks/);
  // TASK-13 is complete: a finished task naming the files is not an open one.
  assert.ok(c.affected.tasks.some((t: Any) => t.id === 'TASK-13' && t.status === 'complete'));
  assert.doesNotMatch(c.risk_reasons.join('\n'), /open task/);
});

test('a task no commit names has no change, and says how to link one', async () => {
  const c = await data('cos_task_changes', { id: 'TASK-15' });
  assert.equal(c.mode, 'none');
  assert.deepEqual(c.changes.files, []);
  assert.equal(c.risk_level, 'none');
  assert.match(c.risk_reasons.join('\n'), /Task: TASK-15/);
  const missing = await call('cos_task_changes', { id: 'TASK-999' });
  assert.ok(!missing.ok && missing.error.category === 'not_found');
  const bad = await call('cos_task_changes', { id: 'TASK-12', base: '--output=x' });
  assert.ok(!bad.ok && bad.error.category === 'validation');
});

test('over MCP the hunks are cut to the agent budget and the cut is announced', async () => {
  const big = Array.from({ length: 3000 }, (_, i) => `export const v${i} = ${i};`).join('\n');
  repo.git('checkout', '-q', '-b', 'task/TASK-15-big');
  repo.write('src/big.ts', `${big}\n`);
  repo.commit('A big file', '2026-11-06T09:00:00Z');
  repo.git('checkout', '-q', 'main');
  try {
    const env = await call('cos_task_changes', { id: 'TASK-15' }, 'mcp');
    assert.ok(env.ok);
    const d: Any = env.data;
    assert.equal(d.mode, 'branch');
    assert.ok(JSON.stringify(env).length < 32_000);
    const file = d.changes.files.find((f: Any) => f.path === 'src/big.ts');
    assert.equal(file.additions, 3000);
    assert.equal(file.hunks_cut, true);
    assert.ok(file.hunks[0].lines.length > 100 && file.hunks[0].lines.length < 3000);
    assert.ok(d.meta.hunks_held_back >= 1);
    const rest = await data('cos_task_changes', { id: 'TASK-15' });
    const whole = rest.changes.files.find((f: Any) => f.path === 'src/big.ts');
    assert.equal(whole.hunks[0].lines.length, 3000);
    assert.equal(whole.hunks_cut, undefined);
  } finally {
    repo.git('branch', '-q', '-D', 'task/TASK-15-big');
  }
});
