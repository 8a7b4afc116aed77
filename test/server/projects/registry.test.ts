// The registry of projects on a real file under a temporary COS_HOME, and `cos project` as a user runs it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ProjectFlags, projectCommand } from '../../../server/cli/project.ts';
import { loadConfig } from '../../../server/config.ts';
import {
  defaultHome,
  ProjectRegistry,
  parseRegistry,
  RegistryError,
  slugFor,
} from '../../../server/projects/registry.ts';

const temp = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

test('slugs come from the directory name, lower-cased, accents and punctuation folded, never taken twice', () => {
  assert.equal(slugFor('/x/My Repo.v2', new Set()), 'my-repo-v2');
  assert.equal(slugFor('/x/Café', new Set()), 'cafe');
  assert.equal(slugFor('/x/___', new Set()), 'project');
  assert.equal(slugFor('/x/api', new Set(['api', 'api-2'])), 'api-3');
  assert.ok(slugFor(`/x/${'a'.repeat(80)}`, new Set()).length <= 40);
});

test("the default home is the platform's configuration directory", () => {
  assert.equal(defaultHome({}, 'linux', '/home/u'), '/home/u/.config/cos');
  assert.equal(defaultHome({ XDG_CONFIG_HOME: '/cfg' }, 'linux', '/home/u'), '/cfg/cos');
  assert.equal(defaultHome({ XDG_CONFIG_HOME: 'relative' }, 'linux', '/home/u'), '/home/u/.config/cos');
  assert.equal(defaultHome({}, 'darwin', '/Users/u'), '/Users/u/Library/Application Support/cos');
});

test('add stores the real path, refuses duplicates by path, slug and state directory, and remove keeps the data', () => {
  const home = temp('cos-home-');
  const repo = temp('cos-repo-');
  const registry = new ProjectRegistry(home);
  assert.deepEqual(registry.read(), { entries: [], problems: [] });
  const link = join(temp('cos-links-'), 'checkout');
  symlinkSync(repo, link);
  const entry = registry.add({ repo: link, slug: 'alpha' });
  assert.equal(entry.repo, repo, 'a symlinked checkout is stored as its target');
  assert.equal(entry.stateDir, join(repo, '.cos'));
  assert.equal(registry.findByRepo(link)?.slug, 'alpha');

  const refused = (fn: () => unknown, kind: RegistryError['kind'], message: RegExp) =>
    assert.throws(
      fn,
      (err: unknown) => err instanceof RegistryError && err.kind === kind && message.test(err.message),
    );
  refused(() => registry.add({ repo }), 'conflict', /registered already as "alpha"/);
  const other = temp('cos-repo-');
  refused(() => registry.add({ repo: other, slug: 'alpha' }), 'conflict', /slug "alpha" is taken/);
  refused(
    () => registry.add({ repo: other, stateDir: join(repo, '.cos') }),
    'conflict',
    /belongs to "alpha"/,
  );
  refused(() => registry.add({ repo: other, slug: 'Bad Slug' }), 'validation', /not a valid slug/);
  refused(() => registry.add({ repo: join(other, 'nope') }), 'not_found', /does not exist/);
  writeFileSync(join(other, 'file.txt'), 'x');
  refused(() => registry.add({ repo: join(other, 'file.txt') }), 'validation', /not a directory/);

  registry.add({ repo: other });
  assert.equal(registry.read().entries.length, 2);
  assert.equal(registry.remove('alpha').repo, repo);
  refused(() => registry.remove('alpha'), 'not_found', /no project "alpha"/);
  assert.deepEqual(
    registry.read().entries.map((e) => e.repo),
    [other],
  );
});

test('a hand-edited file: bad rows are skipped with a reason and written back untouched; a corrupt file is never replaced', () => {
  const home = temp('cos-home-');
  const repo = temp('cos-repo-');
  const file = join(home, 'projects.json');
  const rows = [
    { slug: 'ok', repo },
    { slug: 'NOPE', repo },
    { slug: 'rel', repo: 'relative/path' },
    { slug: 'ok', repo: '/elsewhere' },
    null,
  ];
  writeFileSync(file, JSON.stringify({ projects: rows }));
  const { entries, problems } = parseRegistry(readFileSync(file, 'utf8'), file);
  assert.deepEqual(
    entries.map((e) => e.slug),
    ['ok'],
  );
  assert.equal(problems.length, 4, problems.join('\n'));
  assert.match(problems.join('\n'), /slug must be lower-case/);
  assert.match(problems.join('\n'), /repo must be an absolute path/);
  assert.match(problems.join('\n'), /used twice/);

  const registry = new ProjectRegistry(home);
  registry.add({ repo: temp('cos-repo-'), slug: 'new' });
  const written = JSON.parse(readFileSync(file, 'utf8')) as { projects: unknown[] };
  assert.deepEqual(
    written.projects.slice(0, rows.length),
    rows,
    'rows the change did not touch stay as they were',
  );

  writeFileSync(file, '{ not json');
  assert.throws(() => registry.read(), /not valid JSON.*delete it/);
  assert.throws(() => registry.add({ repo: temp('cos-repo-') }), /not valid JSON/);
  assert.equal(readFileSync(file, 'utf8'), '{ not json');
});

const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;

test('cos project add, list and remove as a user runs them', (t) => {
  const home = temp('cos-home-');
  const repo = temp('cos-repo-');
  mkdirSync(join(repo, 'Second Repo'));
  const env = { COS_HOME: home, COS_PORT: '9300' };
  // One real child process for the wiring (argv, flags, exit code); the rest in-process, where a start
  // costs nothing.
  const added = spawnSync(process.execPath, [COS, 'project', 'add'], {
    encoding: 'utf8',
    cwd: repo,
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
  assert.equal(added.status, 0, added.stderr);
  const slug = slugFor(repo, new Set());
  assert.match(added.stdout, new RegExp(`added "${slug}"`));
  assert.match(added.stdout, new RegExp(`http://127\\.0\\.0\\.1:9300/p/${slug}/mcp`));

  const out: string[] = [];
  const err: string[] = [];
  t.mock.method(console, 'log', (line: string) => out.push(line));
  t.mock.method(console, 'error', (line: string) => err.push(line));
  const config = loadConfig(env, {}, repo);
  const cos = (args: string[], flags: ProjectFlags = {}) => {
    out.length = 0;
    err.length = 0;
    return projectCommand(config, args, flags);
  };
  assert.equal(cos(['add', join(repo, 'Second Repo')], { slug: 'second' }), 0, err.join('\n'));
  assert.equal(cos(['add', join(repo, 'Second Repo')]), 1, 'registered twice');
  assert.match(err.join('\n'), /registered already as "second"/);
  assert.equal(cos(['add', repo], { slug: 'Not A Slug' }), 2);

  assert.equal(cos(['list']), 0);
  assert.match(out.join('\n'), new RegExp(`${slug}\\s+${repo}\\n`));
  assert.match(out.join('\n'), /second\s+.*Second Repo/);

  assert.equal(cos(['remove', 'second']), 0);
  assert.match(out.join('\n'), /its data stays in/);
  assert.equal(cos(['remove', 'second']), 1);
  assert.match(err.join('\n'), /no project "second"/);
  assert.equal(cos(['frobnicate']), 2);
  assert.match(err.join('\n'), /usage: cos project/);
});
