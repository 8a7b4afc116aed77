// What a reservation holds and when two holds overlap: paths, directories and globs against each other,
// as the grant and the hook path decide it; and how a path an agent gives is normalised or refused.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRepoPaths } from '../../../server/agents/paths.ts';
import { compileSpec, normalizeSpec, specHolds, specsOverlap } from '../../../server/coord/path-specs.ts';
import { ToolError } from '../../../server/errors.ts';

const root = mkdtempSync(join(tmpdir(), 'cos-specs-'));
const outside = mkdtempSync(join(tmpdir(), 'cos-specs-out-'));
after(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});
mkdirSync(join(root, 'repo', 'src', 'auth'), { recursive: true });
symlinkSync(outside, join(root, 'repo', 'src', 'away'));
symlinkSync(join(root, 'repo', 'src', 'auth'), join(root, 'repo', 'src', 'inside'));
const paths = createRepoPaths(join(root, 'repo'));

const overlap = (a: string, b: string) => specsOverlap(compileSpec(a), compileSpec(b));

test('paths, directories and globs overlap when some file could be held by both', () => {
  const cases: [string, string, boolean][] = [
    ['src/a.ts', 'src/a.ts', true],
    ['src/a.ts', 'src/a.tsx', false],
    ['src/auth/', 'src/auth/login.ts', true],
    ['src/auth/', 'src/authz.ts', false],
    ['src/auth/', 'src/auth/**', true],
    ['src/auth/login.ts', 'src/*.ts', false],
    ['src/**/*.ts', 'src/a/b.ts', true],
    ['src/**/*.ts', 'src/a/b.md', false],
    ['src/**/*.ts', 'src/auth/', true],
    ['**', 'anything/at/all.txt', true],
    ['*.md', 'docs/x.md', false],
    ['**/*.md', 'docs/x.md', true],
    ['src/*.ts', 'src/*.md', false],
    ['src/a*', 'src/b*', false],
    ['src/a*', 'src/*b', true],
    ['src/{a,b}/', 'src/b/c.ts', true],
    ['src/{a,b}/', 'src/c/', false],
    ['lib/**', 'src/**', false],
    ['src/**/test/*.ts', 'src/x/y/test/**', true],
    ['.env', '*', true],
    ['src/[ab].ts', 'src/c.ts', false],
    ['src/[ab].ts', 'src/b.ts', true],
  ];
  for (const [a, b, expected] of cases) {
    assert.equal(overlap(a, b), expected, `${a} ~ ${b}`);
    assert.equal(overlap(b, a), expected, `${b} ~ ${a} (symmetric)`);
  }
});

test('a spec holds an edited file: a file itself, everything under a directory, what a glob matches', () => {
  assert.equal(specHolds(compileSpec('src/a.ts'), 'src/a.ts'), true);
  assert.equal(specHolds(compileSpec('src/a.ts'), 'src/a.ts.bak'), false);
  assert.equal(specHolds(compileSpec('src/auth/'), 'src/auth/deep/x.ts'), true);
  assert.equal(specHolds(compileSpec('src/*.ts'), 'src/deep/x.ts'), false);
  assert.equal(specHolds(compileSpec('src/**'), 'src/deep/x.ts'), true);
  assert.equal(specHolds(compileSpec('**/.env'), 'config/.env'), true, 'dot files too');
});

test('normalised relative to the repository root; a directory that exists gets its slash', () => {
  assert.equal(normalizeSpec('./src/auth', paths), 'src/auth/');
  assert.equal(normalizeSpec('src//auth/../auth/x.ts', paths), 'src/auth/x.ts');
  assert.equal(normalizeSpec('src/new/', paths), 'src/new/', 'a directory named as one, before it exists');
  assert.equal(normalizeSpec('src/*/', paths), 'src/*/**');
  assert.equal(normalizeSpec(`${join(root, 'repo')}/src/auth/x.ts`, paths), 'src/auth/x.ts');
  assert.equal(
    normalizeSpec('src/inside/x.ts', paths),
    'src/inside/x.ts',
    'a link that stays inside is fine',
  );
});

test('outside the repository, through a link out of it, negated or the root itself: validation', () => {
  for (const bad of [
    '../x',
    '/etc/passwd',
    'src/away/x.ts',
    'src/away/**',
    '{src,..}/x',
    '.',
    '',
    '!src',
    'a'.repeat(1001),
  ]) {
    assert.throws(
      () => normalizeSpec(bad, paths),
      (err: unknown) =>
        err instanceof ToolError && err.category === 'validation' && !err.message.includes(outside),
      bad,
    );
  }
});
