import assert from 'node:assert/strict';
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { createDocsService, type DocsService } from '../../../server/docs/service.ts';
import { ToolError } from '../../../server/errors.ts';
import { docHeaderTool } from '../../../server/tools/docs/doc-header.ts';
import { docHeadersByTool } from '../../../server/tools/docs/doc-headers-by.ts';
import { DocSearchInputSchema, docSearchTool } from '../../../server/tools/docs/doc-search.ts';
import { docsTools } from '../../../server/tools/docs/index.ts';
import { makeTestHub } from '../memory/test-context.ts';

const FIXTURES = new URL('../../fixtures/docs/', import.meta.url).pathname;

interface DocHit {
  path: string;
  heading_path: string[];
  anchor: string | null;
  snippet: string;
  score: number;
  doc_type: string;
}
interface SearchAnswer {
  results: DocHit[];
  meta: { match_mode: string; has_more: boolean; next_offset: number | null; index_state: string };
}

/** A repository made of the fixtures plus what must not be indexed. */
function makeRepo(repo: string) {
  cpSync(FIXTURES, repo, { recursive: true });
  rmSync(join(repo, 'guide.chunks.golden.json'));
  writeFileSync(join(repo, '.gitignore'), 'ignored/\n*.draft.md\n');
  mkdirSync(join(repo, 'ignored'));
  writeFileSync(join(repo, 'ignored', 'secret.md'), '# Secret\n\nzebraword should never be indexed\n');
  writeFileSync(join(repo, 'plan.draft.md'), '# Draft\n\nzebraword draft\n');
  mkdirSync(join(repo, 'node_modules', 'pkg'), { recursive: true });
  writeFileSync(join(repo, 'node_modules', 'pkg', 'README.md'), '# Pkg\n\nzebraword vendored\n');
  mkdirSync(join(repo, '.cos'), { recursive: true });
  writeFileSync(join(repo, '.cos', 'notes.md'), '# State\n\nzebraword state\n');
  mkdirSync(join(repo, 'sub'), { recursive: true });
  writeFileSync(join(repo, 'sub', '.gitignore'), 'local.md\n');
  writeFileSync(join(repo, 'sub', 'local.md'), '# Local\n\nzebraword nested ignore\n');
  writeFileSync(join(repo, 'sub', 'kept.md'), '# Kept\n\nA kept document about giraffes.\n');
  writeFileSync(join(repo, 'code.ts'), '// not a doc: zebraword\n');
  mkdirSync(join(repo, 'board', 'tasks'), { recursive: true });
  writeFileSync(join(repo, 'board', 'tasks', 'TASK-1-z.md'), '---\ntitle: z\n---\n\nzebraword task\n');
}

function setup(watch = false) {
  let docs: DocsService | undefined;
  const hub = makeTestHub(({ db, repo, ctx }) => {
    makeRepo(repo);
    docs = createDocsService({
      db,
      repo,
      stateDir: ctx.config.stateDir,
      // As the hub passes its tasks directory: the board's task files are the board's.
      excludedDirs: [join(repo, 'board', 'tasks')],
      logger: ctx.logger,
      events: ctx.events,
      watch,
      debounceMs: 50,
    });
    return { docs };
  });
  return {
    hub,
    docs: docs!,
    search: (input: Record<string, unknown>) => hub.call<SearchAnswer>(docSearchTool, input),
  };
}

async function rejectsWith(p: Promise<unknown>, category: string, pattern?: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ToolError, String(err));
    assert.equal(err.category, category);
    if (pattern) assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /\/tmp\//);
    return true;
  });
}

describe('docs index and search', () => {
  let s: ReturnType<typeof setup>;
  before(async () => {
    s = setup();
    const report = await s.docs.start();
    assert.equal(report.removed, 0);
  });
  after(async () => {
    await s.docs.close();
    s.hub.cleanup();
  });

  test('tools: module docs, layer docs, closed inputs, REST bindings', () => {
    assert.deepEqual(
      docsTools.map((t) => [t.name, t.http?.path]),
      [
        ['cos_doc_search', '/api/search/docs'],
        ['cos_doc_header', '/api/docs/header'],
        ['cos_doc_headers_by', '/api/docs/headers'],
      ],
    );
    for (const t of docsTools) {
      assert.equal(t.module, 'docs');
      assert.equal(t.layer, 'docs');
      assert.equal(t.input.additionalProperties, false);
    }
    assert.ok(!Value.Check(DocSearchInputSchema, { query: 'x', limit: 21 }));
  });

  test("indexes markdown, rst and text; honours .gitignore at every level; skips node_modules, .cos and the board's tasks", async () => {
    const status = s.docs.status();
    assert.equal(status.state, 'ready');
    assert.equal(status.files, 9);
    const { results } = await s.search({ query: 'zebraword' });
    assert.deepEqual(results, []);
    const kept = await s.search({ query: 'giraffes' });
    assert.deepEqual(
      kept.results.map((r) => r.path),
      ['sub/kept.md'],
    );
  });

  test('ranks by bm25 with headings weighted; results carry path, heading path, anchor, snippet and score', async () => {
    const { results, meta } = await s.search({ query: 'checkpoint' });
    assert.equal(meta.match_mode, 'words');
    const top = results[0]!;
    assert.equal(top.path, 'guide.md');
    assert.deepEqual(top.heading_path, ['Operator guide', 'Troubleshooting']);
    assert.equal(top.anchor, 'troubleshooting');
    assert.match(top.snippet, /\*\*checkpoint\*\*/);
    assert.ok(top.score > 0);

    const decision = await s.search({ query: 'decision sqlite' });
    assert.equal(decision.results[0]?.path, 'adr/0001-use-sqlite.md');
    assert.deepEqual(decision.results[0]?.heading_path, [
      "ADR 1: Use SQLite for the hub's index",
      'Decision',
    ]);
    const scores = decision.results.map((r) => r.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
  });

  test('publishes index progress on the event bus', () => {
    const phases = s.hub.ctx.events.recent(10).map((e) => [e.type, (e.data as { phase: string }).phase]);
    assert.deepEqual(phases, [
      ['index-progress', 'started'],
      ['index-progress', 'ready'],
    ]);
  });

  test('a path prefix with a slash is a directory; without, a string prefix', async () => {
    writeFileSync(join(s.hub.repo, 'adr-notes.md'), '# Notes\n\nsqlite elsewhere\n');
    await s.docs.refresh(['adr-notes.md']);
    const dir = await s.search({ query: 'sqlite', path_prefix: 'adr/' });
    assert.ok(dir.results.length > 0 && dir.results.every((r) => r.path.startsWith('adr/')));
    const loose = await s.search({ query: 'sqlite', path_prefix: 'adr' });
    assert.ok(loose.results.some((r) => r.path === 'adr-notes.md'));
    const all = await s.search({ query: 'sqlite', path_prefix: './' });
    assert.ok(all.results.some((r) => r.path === 'guide.md'));
    rmSync(join(s.hub.repo, 'adr-notes.md'));
    await s.docs.refresh(['adr-notes.md']);
  });

  test('filters by path prefix and doc type', async () => {
    const adr = await s.search({ query: 'sqlite', path_prefix: 'adr/' });
    assert.ok(adr.results.length > 0);
    assert.ok(adr.results.every((r) => r.path.startsWith('adr/')));
    const guide = await s.search({ query: 'sqlite', doc_type: 'guide' });
    assert.ok(guide.results.length > 0);
    assert.ok(guide.results.every((r) => r.path === 'guide.md'));
    const adrType = await s.search({ query: 'cache', doc_type: 'adr' });
    assert.deepEqual(
      adrType.results.map((r) => r.path),
      ['adr/0002-drop-redis.md'],
    );
    await rejectsWith(
      s.search({ query: 'sqlite', path_prefix: '../etc' }),
      'validation',
      /repository-relative/,
    );
  });

  test('pages with limit and next_offset', async () => {
    const first = await s.search({ query: 'sqlite', limit: 1 });
    assert.equal(first.results.length, 1);
    assert.equal(first.meta.has_more, true);
    assert.equal(first.meta.next_offset, 1);
    const second = await s.search({ query: 'sqlite', limit: 1, offset: 1 });
    assert.notDeepEqual(second.results[0], first.results[0]);
  });

  const nonLatin: [string, string, string][] = [
    ['连接池', 'i18n/zh.md', 'substring'],
    ['东京', 'i18n/zh.md', 'substring'],
    ['базе', 'i18n/ru.md', 'words'],
    ['Подключение', 'i18n/ru.md', 'words'],
    ['البيانات', 'i18n/ar.md', 'words'],
    ['قاعدة', 'i18n/ar.md', 'words'],
  ];
  for (const [query, path, mode] of nonLatin) {
    test(`finds non-Latin "${query}" in ${path}`, async () => {
      const { results, meta } = await s.search({ query });
      assert.equal(results[0]?.path, path);
      assert.equal(meta.match_mode, mode);
      assert.ok(
        results[0]!.snippet.includes(`**${query.toLowerCase()}**`) || results[0]!.snippet.includes(query),
      );
    });
  }

  test('the Arabic word behind a clitic prefix is found by the substring fallback', async () => {
    // "بقاعدة" in the text is ب + قاعدة; the heading has the bare word, so search the body only.
    const { results, meta } = await s.search({ query: 'مجمع', path_prefix: 'i18n/' });
    assert.equal(results[0]?.path, 'i18n/ar.md');
    assert.equal(meta.match_mode, 'words');
    const clitic = await s.search({ query: 'اتصالات' });
    assert.equal(clitic.results[0]?.path, 'i18n/ar.md');
    assert.equal(clitic.meta.match_mode, 'substring');
  });

  test('FTS syntax is searched as text; nothing searchable answers validation', async () => {
    for (const q of [
      '"checkpoint',
      'NEAR(checkpoint reader)',
      'checkpoint*',
      '-checkpoint',
      '(checkpoint',
      'heading:checkpoint',
    ]) {
      const { results } = await s.search({ query: q });
      assert.ok(
        results.some((r) => r.path === 'guide.md' && r.anchor === 'troubleshooting'),
        q,
      );
    }
    await rejectsWith(s.search({ query: '*:()-"' }), 'validation', /searchable/);
  });

  test('cos_doc_header returns front matter and first heading only', async () => {
    const h = await s.hub.call<Record<string, unknown>>(docHeaderTool, { path: './adr/0001-use-sqlite.md' });
    assert.deepEqual(h.front_matter, { status: 'accepted', tags: ['storage', 'sqlite'], date: '2026-01-15' });
    assert.equal(h.title, "ADR 1: Use SQLite for the hub's index");
    assert.equal(h.doc_type, 'adr');
    assert.equal(h.chunk_count, 3);
    assert.ok(!('text' in h));
    await rejectsWith(s.hub.call(docHeaderTool, { path: 'missing.md' }), 'not_found', /cos_doc_search/);
    await rejectsWith(s.hub.call(docHeaderTool, { path: '../../etc/passwd' }), 'validation');
    await rejectsWith(s.hub.call(docHeaderTool, { path: '/etc/passwd' }), 'validation');
    await rejectsWith(s.hub.call(docHeaderTool, { path: 'ignored/secret.md' }), 'not_found');
  });

  test('cos_doc_headers_by matches scalar values, list items, booleans and bare keys', async () => {
    type Answer = { results: { path: string }[]; meta: { has_more: boolean } };
    const paths = async (input: Record<string, unknown>) =>
      (await s.hub.call<Answer>(docHeadersByTool, input)).results.map((d) => d.path);
    assert.deepEqual(await paths({ key: 'status', value: 'Accepted' }), ['adr/0001-use-sqlite.md']);
    assert.deepEqual(await paths({ key: 'tags', value: 'sqlite' }), ['adr/0001-use-sqlite.md', 'guide.md']);
    assert.deepEqual(await paths({ key: 'draft', value: 'false' }), ['adr/0002-drop-redis.md']);
    assert.deepEqual(await paths({ key: 'status' }), ['adr/0001-use-sqlite.md', 'adr/0002-drop-redis.md']);
    assert.deepEqual(await paths({ key: 'tags', path_prefix: 'adr' }), [
      'adr/0001-use-sqlite.md',
      'adr/0002-drop-redis.md',
    ]);
    assert.deepEqual(await paths({ key: "x') OR 1=1 --", value: 'a' }), []);
    const paged = await s.hub.call<Answer>(docHeadersByTool, { key: 'status', limit: 1 });
    assert.equal(paged.meta.has_more, true);
  });
});

describe('keeping the index current', () => {
  test('refresh picks up edits, new files, deletions, directory removal and .gitignore changes', async () => {
    const s = setup();
    try {
      await s.docs.start();
      const repo = s.hub.repo;
      writeFileSync(join(repo, 'notes.txt'), 'Release checklist\n\nNow mentions the quokka.\n');
      writeFileSync(join(repo, 'new.md'), '# New\n\n## Wombats\n\nAll about wombats.\n');
      rmSync(join(repo, 'intro.rst'));
      await s.docs.refresh(['notes.txt', join(repo, 'new.md'), 'intro.rst']);
      assert.equal((await s.search({ query: 'quokka' })).results[0]?.path, 'notes.txt');
      assert.deepEqual((await s.search({ query: 'wombats' })).results[0]?.heading_path, ['New', 'Wombats']);
      assert.equal((await s.search({ query: 'reStructuredText' })).results.length, 0);

      rmSync(join(repo, 'adr'), { recursive: true });
      await s.docs.refresh(['adr']);
      assert.equal((await s.search({ query: 'redis' })).results.length, 0);

      renameSync(join(repo, 'i18n'), join(repo, 'lang'));
      await s.docs.refresh(['i18n', 'lang']);
      assert.equal((await s.search({ query: 'базе' })).results[0]?.path, 'lang/ru.md');

      writeFileSync(join(repo, '.gitignore'), 'ignored/\n*.draft.md\nlang/\n');
      await s.docs.refresh(['.gitignore']);
      assert.equal((await s.search({ query: 'базе' })).results.length, 0);
      writeFileSync(join(repo, '.gitignore'), '');
      await s.docs.refresh(['.gitignore']);
      assert.equal(
        (await s.search({ query: 'zebraword', path_prefix: 'ignored' })).results[0]?.path,
        'ignored/secret.md',
      );
    } finally {
      await s.docs.close();
      s.hub.cleanup();
    }
  });

  test('a restart re-chunks nothing that did not change', async () => {
    const s = setup();
    try {
      const first = await s.docs.start();
      assert.equal(first.indexed, 9);
      await s.docs.close();
      const again = createDocsService({
        db: s.hub.db,
        repo: s.hub.repo,
        stateDir: s.hub.ctx.config.stateDir,
        excludedDirs: [join(s.hub.repo, 'board', 'tasks')],
        watch: false,
      });
      const second = await again.start();
      assert.deepEqual([second.indexed, second.unchanged, second.removed], [0, 9, 0]);
      await again.close();
    } finally {
      s.hub.cleanup();
    }
  });

  test('the watcher re-indexes a changed file without being asked', async () => {
    const s = setup(true);
    try {
      await s.docs.start();
      assert.ok(s.docs.status().watched_dirs >= 4);
      writeFileSync(join(s.hub.repo, 'sub', 'kept.md'), '# Kept\n\nNow about okapis.\n');
      mkdirSync(join(s.hub.repo, 'fresh'));
      const deadline = Date.now() + 5000;
      let found: DocHit[] = [];
      while (Date.now() < deadline) {
        found = (await s.search({ query: 'okapis' })).results;
        if (found.length > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(found[0]?.path, 'sub/kept.md');
      // A directory created after start is watched too.
      await s.docs.idle();
      writeFileSync(join(s.hub.repo, 'fresh', 'late.md'), '# Late\n\nnarwhals arrive late\n');
      const until = Date.now() + 5000;
      let late: DocHit[] = [];
      while (Date.now() < until) {
        late = (await s.search({ query: 'narwhals' })).results;
        if (late.length > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(late[0]?.path, 'fresh/late.md');
    } finally {
      await s.docs.close();
      s.hub.cleanup();
    }
  });
});
