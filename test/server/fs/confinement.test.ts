// Nothing outside the repository's real path is read or indexed, symlinks included: the graph (its walk,
// explicit reindex paths, its watcher), the docs index (its walk and watchers) and the board's task
// files. A repository with links out to a directory of its own, to /etc, to single files, and one link
// inside the repository; the real hub with its services, over REST.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfinedRoot } from '../../../server/fs/confined.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

const OUTSIDE_TASK = `---
id: 99
title: Outside task zebrafish
status: icebox
kind: feature
priority: P2
---

## Outcome

From outside the repository.
`;

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('symlinks never lead a reader out of the repository', () => {
  const base = mkdtempSync(join(tmpdir(), 'cos-confine-'));
  const repo = join(base, 'repo');
  const outside = join(base, 'outside');
  let t: TestHub;
  const get = async (path: string) =>
    (await fetch(`${t.url}${path}`)).json() as Promise<Record<string, unknown>>;
  const text = async (path: string) => JSON.stringify(await get(path));
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.text() };
  };
  /** Paths the indexes hold, straight from the database. */
  const indexed = () => {
    const db = t.hub.db;
    return [
      ...(db.prepare('SELECT path FROM graph_files').pluck().all() as string[]),
      ...(db
        .prepare('SELECT file_path FROM graph_nodes WHERE file_path IS NOT NULL')
        .pluck()
        .all() as string[]),
      ...(db.prepare('SELECT path FROM doc_files').pluck().all() as string[]),
      ...(db.prepare('SELECT path FROM tasks').pluck().all() as string[]),
    ];
  };
  const LINKED = /linked|etcdir|outdir|late-(dir|link)|was-real/;

  before(async () => {
    mkdirSync(join(outside, 'nested'), { recursive: true });
    writeFileSync(
      join(outside, 'secret.ts'),
      'export function outsideSecretSymbol(): number {\n  return 1;\n}\n',
    );
    writeFileSync(join(outside, 'nested', 'deep.py'), 'def outside_deep_symbol():\n    return 2\n');
    writeFileSync(join(outside, 'secret.md'), '# Outside secret title\n\nzebrafish words from outside.\n');
    writeFileSync(join(outside, 'TASK-99-outside.md'), OUTSIDE_TASK);
    writeFileSync(join(outside, '.gitignore'), '*\n');
    mkdirSync(join(repo, 'src'), { recursive: true });
    mkdirSync(join(repo, 'docs', 'tasks'), { recursive: true });
    writeFileSync(join(repo, 'src', 'a.ts'), 'export function insideSymbol(): number {\n  return 0;\n}\n');
    writeFileSync(join(repo, 'docs', 'guide.md'), '# Guide\n\nkingfisher words from inside.\n');
    symlinkSync(outside, join(repo, 'src', 'linked-dir'));
    symlinkSync(join(outside, 'secret.ts'), join(repo, 'src', 'linked.ts'));
    symlinkSync('/etc', join(repo, 'docs', 'etcdir'));
    symlinkSync(outside, join(repo, 'docs', 'outdir'));
    symlinkSync(join(outside, 'secret.md'), join(repo, 'docs', 'linked.md'));
    symlinkSync(join(outside, 'TASK-99-outside.md'), join(repo, 'docs', 'tasks', 'TASK-98-linked.md'));
    // A link inside the repository is not followed either (the file is indexed once, where it is).
    symlinkSync('a.ts', join(repo, 'src', 'linked-alias.ts'));
    t = await startTestHub({ env: { COS_REPO: repo, COS_RATE_LIMIT_RPS: '0' } });
    await t.hub.start();
    await t.listen();
    await until('the graph index', async () =>
      (await text('/api/graph/search?query=insideSymbol')).includes('insideSymbol'),
    );
    await until('the docs index', async () =>
      (await text('/api/search/docs?query=kingfisher')).includes('guide.md'),
    );
  });
  after(async () => {
    await t.close();
    rmSync(base, { recursive: true, force: true });
  });

  test('the first index holds nothing behind a link', async () => {
    assert.deepEqual(
      indexed().filter((p) => LINKED.test(p)),
      [],
    );
    assert.doesNotMatch(await text('/api/graph/search?query=outsideSecretSymbol'), /outsideSecretSymbol/);
    assert.doesNotMatch(await text('/api/search/docs?query=zebrafish'), /zebrafish/);
    assert.doesNotMatch(await text('/api/board/list'), /zebrafish|TASK-99/);
    const header = await get('/api/docs/header?path=docs/linked.md');
    assert.equal((header.error as { category: string }).category, 'not_found');
  });

  test('explicit reindex paths through a link read nothing (a directory link to /etc included)', async () => {
    for (const path of [
      'docs/etcdir',
      'docs/etcdir/passwd',
      'src/linked-dir',
      'src/linked-dir/nested',
      'src/linked.ts',
      'docs/outdir/secret.md',
      'src/linked-alias.ts',
    ]) {
      const res = await post('/api/graph/reindex', { paths: [path] });
      assert.equal(res.status, 200, res.body);
    }
    assert.deepEqual(
      indexed().filter((p) => LINKED.test(p)),
      [],
    );
    for (const q of ['outsideSecretSymbol', 'outside_deep_symbol']) {
      assert.doesNotMatch(await text(`/api/graph/search?query=${q}`), new RegExp(q));
    }
    assert.doesNotMatch(await text('/api/graph/export'), /etcdir|linked-dir|outsideSecret/);
    assert.doesNotMatch(await text('/api/graph/dead-code'), /outsideSecret|outside_deep/);
  });

  test('the watchers follow no link made later, and drop a file replaced by one', async () => {
    writeFileSync(join(repo, 'docs', 'was-real.md'), '# Heron\n\nheron words.\n');
    writeFileSync(join(repo, 'src', 'wasReal.ts'), 'export function wasRealSymbol(): void {}\n');
    await until(
      'the new files indexed',
      async () =>
        (await text('/api/search/docs?query=heron')).includes('was-real.md') &&
        (await text('/api/graph/search?query=wasRealSymbol')).includes('wasRealSymbol'),
    );
    unlinkSync(join(repo, 'docs', 'was-real.md'));
    symlinkSync(join(outside, 'secret.md'), join(repo, 'docs', 'was-real.md'));
    unlinkSync(join(repo, 'src', 'wasReal.ts'));
    symlinkSync(join(outside, 'secret.ts'), join(repo, 'src', 'wasReal.ts'));
    symlinkSync(outside, join(repo, 'docs', 'late-dir'));
    symlinkSync(outside, join(repo, 'src', 'late-dir'));
    symlinkSync(join(outside, 'secret.md'), join(repo, 'docs', 'late-link.md'));
    symlinkSync(join(outside, 'TASK-99-outside.md'), join(repo, 'docs', 'tasks', 'TASK-97-late.md'));
    // A real file made at the same moment proves the watchers ran.
    writeFileSync(join(repo, 'docs', 'late-real.md'), '# Late\n\nosprey words.\n');
    writeFileSync(join(repo, 'src', 'lateReal.ts'), 'export function lateRealSymbol(): void {}\n');
    await until(
      'the watchers',
      async () =>
        (await text('/api/search/docs?query=osprey')).includes('late-real.md') &&
        (await text('/api/graph/search?query=lateRealSymbol')).includes('lateRealSymbol') &&
        !(await text('/api/search/docs?query=heron')).includes('was-real.md') &&
        !(await text('/api/graph/search?query=wasRealSymbol')).includes('wasRealSymbol'),
    );
    // And the outside files change while linked: still nothing read.
    writeFileSync(join(outside, 'secret.md'), '# Outside secret title\n\nzebrafish changed outside.\n');
    await new Promise((r) => setTimeout(r, 1_500));
    assert.deepEqual(
      indexed().filter((p) => LINKED.test(p) || p.includes('late-dir')),
      [],
    );
    assert.doesNotMatch(await text('/api/search/docs?query=zebrafish'), /zebrafish/);
    assert.doesNotMatch(await text('/api/graph/search?query=outsideSecretSymbol'), /outsideSecretSymbol/);
    assert.doesNotMatch(await text('/api/board/list'), /zebrafish|TASK-99/);
    const header = await get('/api/docs/header?path=docs/late-link.md');
    assert.equal((header.error as { category: string }).category, 'not_found');
  });
});

describe('ConfinedRoot', () => {
  const base = mkdtempSync(join(tmpdir(), 'cos-confined-root-'));
  after(() => rmSync(base, { recursive: true, force: true }));

  test('reads a path only where it says it is', () => {
    mkdirSync(join(base, 'root', 'dir'), { recursive: true });
    mkdirSync(join(base, 'elsewhere'));
    writeFileSync(join(base, 'root', 'dir', 'f.txt'), 'inside');
    writeFileSync(join(base, 'elsewhere', 'g.txt'), 'outside');
    symlinkSync(join(base, 'elsewhere'), join(base, 'root', 'out'));
    symlinkSync(join(base, 'elsewhere', 'g.txt'), join(base, 'root', 'g.txt'));
    symlinkSync('dir/f.txt', join(base, 'root', 'alias.txt'));
    symlinkSync(join(base, 'nowhere'), join(base, 'root', 'dangling'));
    // The root itself reached through a link is fine: paths are judged under its real path.
    symlinkSync(join(base, 'root'), join(base, 'root-link'));
    for (const root of [join(base, 'root'), join(base, 'root-link')]) {
      const r = new ConfinedRoot(root);
      assert.equal(r.readText('dir/f.txt'), 'inside');
      assert.equal(r.readTextOrThrow('dir/f.txt'), 'inside');
      for (const rel of ['out/g.txt', 'g.txt', 'alias.txt', 'dangling', '../elsewhere/g.txt', 'missing']) {
        assert.equal(r.readText(rel), undefined, rel);
        assert.equal(r.readTextOrThrow(rel), null, rel);
        assert.equal(r.stat(rel), undefined, rel);
      }
      assert.equal(r.stat('out'), undefined);
      assert.equal(r.leadsElsewhere('out'), true);
      assert.equal(r.leadsElsewhere('dangling'), true);
      assert.equal(r.leadsElsewhere('missing'), false);
      assert.equal(r.leadsElsewhere('dir'), false);
    }
  });
});
