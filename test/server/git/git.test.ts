// The git module on a real repository made here: diffs with renames, binaries and odd names; logs with
// trailers and merges; bounded output; revisions that could read as options never reach git as one.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseDiff } from '../../../server/git/diff.ts';
import { GitError, REF_PATTERN, runGit } from '../../../server/git/run.ts';
import { createGitService } from '../../../server/git/service.ts';
import { branchTokens, messageTokens } from '../../../server/git/task-links.ts';
import { makeRepo, type TestRepo } from './repo.ts';

let repo: TestRepo;
let first: string;
let renamed: string;

before(() => {
  repo = makeRepo();
  repo.write('src/a.ts', 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n');
  repo.write('docs/old name.md', '# Old\n\nline\n');
  repo.write('bin.dat', '\u0000\u0001\u0002');
  first = repo.commit('first', '2026-11-02T09:00:00Z');
  repo.git('mv', 'docs/old name.md', 'docs/nouveau é.md');
  repo.write('src/a.ts', 'export const a = 1;\nexport const c = 30;\n');
  repo.git('rm', '-q', 'bin.dat');
  renamed = repo.commit('Rename the doc\n\nTask: TASK-7', '2026-11-03T10:00:00Z');
});
after(() => repo.remove());

test('a range diff lists a rename with its old path, an edit with its ranges and a deleted binary', async () => {
  const git = createGitService(repo.dir);
  const { files, truncated } = await git.diff({ base: first, head: renamed, lines: true });
  assert.equal(truncated, false);
  const by = new Map(files.map((f) => [f.path, f]));
  assert.deepEqual([...by.values()].map((f) => `${f.status} ${f.path}`).sort(), [
    'deleted bin.dat',
    'modified src/a.ts',
    'renamed docs/nouveau é.md',
  ]);
  assert.equal(by.get('docs/nouveau é.md')?.old_path, 'docs/old name.md');
  assert.equal(by.get('bin.dat')?.binary, true);
  const a = by.get('src/a.ts');
  // Line 2 (b) removed and line 3 (c) changed: one run of changes at new line 2.
  assert.deepEqual(a?.ranges, [[2, 2]]);
  assert.equal(a?.additions, 1);
  assert.equal(a?.deletions, 2);
  assert.equal(a?.lines_changed, 2);
  assert.deepEqual(a?.hunks[0]?.lines, [
    ' export const a = 1;',
    '-export const b = 2;',
    '-export const c = 3;',
    '+export const c = 30;',
  ]);
});

test('the working tree lists staged, unstaged and untracked files, untracked ones with their lines', async () => {
  repo.write('src/a.ts', 'export const a = 2;\nexport const c = 30;\n');
  repo.write('new file.txt', 'hello\nworld\n');
  try {
    const git = createGitService(repo.dir);
    const { files } = await git.diff({ lines: true });
    const by = new Map(files.map((f) => [f.path, f]));
    assert.deepEqual(by.get('src/a.ts')?.ranges, [[1, 1]]);
    assert.equal(by.get('new file.txt')?.status, 'added');
    assert.deepEqual(by.get('new file.txt')?.hunks[0]?.lines, ['+hello', '+world']);
    const ranges = await git.diff({});
    assert.deepEqual(ranges.files.find((f) => f.path === 'new file.txt')?.ranges, [
      [1, Number.MAX_SAFE_INTEGER],
    ]);
  } finally {
    repo.git('checkout', '-q', '--', '.');
    repo.git('clean', '-qfd');
  }
});

test('the first commit opens like any other: its parent is the empty tree', async () => {
  const git = createGitService(repo.dir);
  const { files } = await git.diff({ base: `${first}^`, head: first });
  assert.deepEqual(files.map((f) => `${f.status} ${f.path}`).sort(), [
    'added bin.dat',
    'added docs/old name.md',
    'added src/a.ts',
  ]);
});

test('a log reads merges against their first parent, renames and whole messages', async () => {
  repo.git('checkout', '-q', '-b', 'task/TASK-8-side');
  repo.write('side.txt', 'side\n');
  repo.commit('side work', '2026-11-04T10:00:00Z');
  repo.git('checkout', '-q', 'main');
  repo.git('merge', '-q', '--no-ff', 'task/TASK-8-side', '-m', "Merge branch 'task/TASK-8-side'");
  const git = createGitService(repo.dir);
  const { commits } = await git.log(['main'], { maxCount: 10 });
  const merge = commits[0];
  assert.equal(merge?.parents.length, 2);
  assert.equal(merge?.subject, "Merge branch 'task/TASK-8-side'");
  assert.deepEqual(merge?.files, [{ path: 'side.txt', old_path: null, status: 'added' }]);
  const rename = commits.find((c) => c.sha === renamed);
  assert.equal(rename?.message, 'Rename the doc\n\nTask: TASK-7');
  assert.equal(rename?.time, '2026-11-03T10:00:00+00:00');
  assert.ok(rename?.files.some((f) => f.status === 'renamed' && f.old_path === 'docs/old name.md'));
  assert.equal(await git.defaultBase(), 'main');
});

test('task ids are found in subjects, bodies and trailers, never inside longer ids', () => {
  assert.deepEqual(
    [
      ...messageTokens(
        'Fix TASK-12 parsing\n\nAlso see task-3 and SUBTASK-9 and TASK-120x.\n\nTask: 44\nRefs TASK-5, TASK-6',
      ),
    ],
    [
      ['TASK-12', 'message'],
      ['TASK-3', 'message'],
      ['44', 'trailer'],
      ['TASK-5', 'trailer'],
      ['TASK-6', 'trailer'],
    ],
  );
  // A bare number is a task only in a Task trailer: "Refs: 12" may be an issue tracker's.
  assert.deepEqual([...messageTokens('x\n\nRefs: 12')], []);
  assert.deepEqual(branchTokens('task/TASK-12-fix-it'), ['TASK-12']);
  assert.deepEqual(branchTokens('origin/TASK-012'), ['TASK-012']);
  assert.deepEqual(branchTokens('feature/notTASK-1'), []);
});

test('output past the cap is cut at a line (or refused), and a slow git is stopped', async () => {
  const cut = await runGit(repo.dir, ['log', '--format=%H %s'], {
    timeoutMs: 5000,
    maxBytes: 100,
    truncate: true,
  });
  assert.equal(cut.truncated, true);
  assert.ok(cut.stdout.endsWith('\n') && cut.stdout.split('\n').length === 2);
  await assert.rejects(
    runGit(repo.dir, ['log', '--format=%H %s'], { timeoutMs: 5000, maxBytes: 60 }),
    (err: unknown) => err instanceof GitError && err.reason === 'too_large',
  );
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(
    runGit(repo.dir, ['log'], { timeoutMs: 5000, maxBytes: 1000, signal: aborted.signal }),
    (err: unknown) => err instanceof GitError && err.reason === 'timeout',
  );
});

test('revisions that could be options or shell are refused by the pattern, and no shell ever runs', async () => {
  for (const bad of ['--output=/tmp/x', '-p', '$(touch pwned)', 'a b', 'HEAD;touch pwned', ''])
    assert.equal(REF_PATTERN.test(bad), false, bad);
  for (const good of ['HEAD~2', 'main...task/TASK-1-x', 'v1.2^{}', `${first}^`])
    assert.ok(REF_PATTERN.test(good), good);
  const git = createGitService(repo.dir);
  await assert.rejects(
    git.diff({ base: '$(touch pwned)' }),
    (err: unknown) => err instanceof GitError && err.reason === 'bad_ref',
  );
  assert.equal(existsSync(join(repo.dir, 'pwned')), false);
});

test('the diff parser keeps quoted names, mode-only changes and "no newline" markers', () => {
  const files = parseDiff(
    [
      'diff --git "a/tab\\there.txt" "b/tab\\there.txt"',
      'index 1..2 100644',
      '--- "a/tab\\there.txt"',
      '+++ "b/tab\\there.txt"',
      '@@ -1 +1 @@',
      '-old',
      '\\ No newline at end of file',
      '+new',
      'diff --git a/run.sh b/run.sh',
      'old mode 100644',
      'new mode 100755',
      'diff --git a/\\303\\251.md b/\\303\\251.md',
      'deleted file mode 100644',
      '--- a/x',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '-a',
      '-b',
    ].join('\n'),
    { lines: true },
  );
  assert.deepEqual(
    files.map((f) => [f.path, f.status, f.ranges]),
    [
      ['tab\there.txt', 'modified', [[1, 1]]],
      ['run.sh', 'modified', []],
      ['x', 'deleted', [[1, 2]]],
    ],
  );
  assert.deepEqual(files[0]?.hunks[0]?.lines, ['-old', '\\ No newline at end of file', '+new']);
});
