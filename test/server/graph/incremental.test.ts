// Incremental indexing on a copy of the TypeScript fixture: unchanged files cost nothing, a changed
// file's symbols are replaced and the edges into them re-resolve, deleted and renamed files leave no
// trace, and a file that does not parse is recorded while the rest is indexed.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Db, openDatabase } from '../../../server/db/open.ts';
import { Indexer } from '../../../server/graph/indexer.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/graph/ts', import.meta.url));

function setup(): { repo: string; db: Db; indexer: Indexer; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-'));
  const repo = join(dir, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  const db = openDatabase(join(dir, 'hub.db'));
  return {
    repo,
    db,
    indexer: new Indexer({ repo, db }),
    cleanup: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const edgesTo = (db: Db, uid: string) =>
  (
    db
      .prepare(
        `SELECT s.uid AS s, e.edge_type AS ty, e.confidence AS c FROM graph_edges e
         JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id WHERE t.uid = ? ORDER BY s.uid`,
      )
      .all(uid) as { s: string; ty: string; c: number }[]
  ).map((r) => `${r.s} ${r.ty} ${r.c}`);

const has = (db: Db, uid: string) =>
  db.prepare('SELECT 1 FROM graph_nodes WHERE uid = ?').get(uid) !== undefined;

test('a second pass over an unchanged repo extracts nothing, and force re-extracts everything', async () => {
  const { indexer, cleanup } = setup();
  try {
    const first = await indexer.run({});
    assert.equal(first.filesChanged, 7);
    const second = await indexer.run({});
    assert.equal(second.filesChanged, 0);
    assert.equal(second.nodes, first.nodes);
    assert.equal(second.edges, first.edges);
    const forced = await indexer.run({ force: true });
    assert.equal(forced.filesChanged, 7);
    assert.equal(forced.edges, first.edges);
  } finally {
    cleanup();
  }
});

test('a renamed function: callers in other files re-resolve to a stub, and back when it returns', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    await indexer.run({});
    const add = 'code:function:src/lib/math.ts::add';
    assert.deepEqual(edgesTo(db, add), [
      'code:file:src/lib/math.ts contains 1',
      'code:function:src/app.ts::main calls 1',
      'code:method:src/lib/math.ts::Calculator.add calls 1',
    ]);
    const math = join(repo, 'src/lib/math.ts');
    const original = readFileSync(math, 'utf8');
    writeFileSync(
      math,
      original.replaceAll('add(a: number', 'sum(a: number').replace('= add(this', '= sum(this'),
    );
    const r = await indexer.run({ paths: ['src/lib/math.ts'] });
    assert.equal(r.filesChanged, 1);
    assert.equal(has(db, add), false);
    assert.equal(edgesTo(db, 'code:function:src/lib/math.ts::sum').length, 2);
    // app.ts still imports `add`, which math.ts no longer has: its call goes to an unresolved stub.
    assert.ok(
      edgesTo(db, 'code:external:(unresolved)::add').includes('code:function:src/app.ts::main calls 0.2'),
    );
    writeFileSync(math, original);
    await indexer.run({ paths: ['src/lib/math.ts'] });
    assert.deepEqual(edgesTo(db, add), [
      'code:file:src/lib/math.ts contains 1',
      'code:function:src/app.ts::main calls 1',
      'code:method:src/lib/math.ts::Calculator.add calls 1',
    ]);
    // Nothing points at the stub any more, so it is gone.
    assert.equal(has(db, 'code:external:(unresolved)::add'), false);
  } finally {
    cleanup();
  }
});

test('a deleted file is pruned with its nodes and edges, and importers stop resolving through it', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    await indexer.run({});
    assert.ok(
      edgesTo(db, 'code:function:src/lib/format.ts::format').includes(
        'code:function:src/app.ts::main calls 1',
      ),
    );
    rmSync(join(repo, 'src/lib/format.ts'));
    const r = await indexer.run({});
    assert.equal(r.filesDeleted, 1);
    assert.equal(has(db, 'code:file:src/lib/format.ts'), false);
    assert.equal(has(db, 'code:function:src/lib/format.ts::format'), false);
    assert.equal(
      db.prepare("SELECT count(*) FROM graph_files WHERE path = 'src/lib/format.ts'").pluck().get(),
      0,
    );
    assert.equal(
      db.prepare("SELECT count(*) FROM graph_nodes WHERE file_path = 'src/lib/format.ts'").pluck().get(),
      0,
    );
    // The barrel still re-exports `format` from './format', which is gone: the call names that stub.
    assert.ok(
      edgesTo(db, 'code:external:./format::format').includes('code:function:src/app.ts::main calls 0.9'),
    );
    // No edge is left pointing at or from a node that does not exist (the foreign keys cascade).
    assert.equal(db.prepare('PRAGMA foreign_key_check').all().length, 0);
  } finally {
    cleanup();
  }
});

test('a renamed file moves its symbols to the new path and its importers re-resolve', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    await indexer.run({});
    renameSync(join(repo, 'src/lib/math.ts'), join(repo, 'src/lib/calc.ts'));
    writeFileSync(
      join(repo, 'src/lib/index.ts'),
      "export * from './calc';\nexport { format as fmt } from './format';\n",
    );
    // The watcher reports both paths of a rename; an explicit path list must handle it too.
    await indexer.run({ paths: ['src/lib/math.ts', 'src/lib/calc.ts', 'src/lib/index.ts'] });
    assert.equal(has(db, 'code:file:src/lib/math.ts'), false);
    assert.equal(has(db, 'code:class:src/lib/math.ts::Calculator'), false);
    assert.ok(has(db, 'code:class:src/lib/calc.ts::Calculator'));
    // app.ts constructs Calculator through the barrel, which now re-exports calc.ts.
    assert.ok(
      edgesTo(db, 'code:class:src/lib/calc.ts::Calculator').includes(
        'code:function:src/app.ts::main constructs 1',
      ),
    );
    // app.ts also imports '@lib/math' directly, which is gone: that import is now an external stub.
    assert.ok(edgesTo(db, 'code:external:@lib/math').includes('code:file:src/app.ts imports 0.9'));
  } finally {
    cleanup();
  }
});

test('a file that fails to parse is recorded with its error and the other files are indexed', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    writeFileSync(join(repo, 'src/broken.ts'), 'export function ok() {}\nexport class {{{ nope\n');
    const r = await indexer.run({});
    assert.equal(r.filesFailed, 1);
    const row = db.prepare("SELECT error FROM graph_files WHERE path = 'src/broken.ts'").get() as {
      error: string;
    };
    assert.match(row.error, /syntax error at line \d+/);
    assert.ok(has(db, 'code:function:src/broken.ts::ok'), 'what did parse is kept');
    assert.ok(has(db, 'code:class:src/lib/math.ts::Calculator'));
    writeFileSync(join(repo, 'src/broken.ts'), 'export function ok() {}\n');
    await indexer.run({});
    assert.equal(
      db.prepare("SELECT error FROM graph_files WHERE path = 'src/broken.ts'").pluck().get(),
      null,
    );
  } finally {
    cleanup();
  }
});

test('a new file satisfies an import that did not resolve before', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    writeFileSync(
      join(repo, 'src/uses-later.ts'),
      "import { later } from './later';\nexport const v = later();\n",
    );
    await indexer.run({});
    assert.ok(edgesTo(db, 'code:external:./later').includes('code:file:src/uses-later.ts imports 0.9'));
    writeFileSync(join(repo, 'src/later.ts'), 'export function later() { return 1; }\n');
    await indexer.run({ paths: ['src/later.ts'] });
    assert.deepEqual(edgesTo(db, 'code:function:src/later.ts::later'), [
      'code:constant:src/uses-later.ts::v calls 1',
      'code:file:src/later.ts contains 1',
    ]);
  } finally {
    cleanup();
  }
});

test('full-text search finds symbols by camelCase and snake_case words and by prefix', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    writeFileSync(
      join(repo, 'src/words.ts'),
      'export function parseHTTPHeader_v2() {}\nexport const max_retry_count = 3;\n',
    );
    await indexer.run({});
    const search = (q: string) =>
      db
        .prepare(
          'SELECT n.uid FROM graph_fts f JOIN graph_nodes n ON n.id = f.rowid WHERE graph_fts MATCH ? ORDER BY rank',
        )
        .pluck()
        .all(q);
    assert.ok(search('header').includes('code:function:src/words.ts::parseHTTPHeader_v2'));
    assert.ok(search('http').includes('code:function:src/words.ts::parseHTTPHeader_v2'));
    assert.ok(search('retry').includes('code:constant:src/words.ts::max_retry_count'));
    assert.ok(search('calc*').includes('code:class:src/lib/math.ts::Calculator'));
    // Deleting a file removes its rows from the index too (the trigger follows cascades).
    rmSync(join(repo, 'src/words.ts'));
    await indexer.run({});
    assert.deepEqual(search('header'), []);
  } finally {
    cleanup();
  }
});

test('a new indexer on an existing database skips unchanged files and still re-resolves dependents', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    const first = await indexer.run({});
    // The hub restarted: a fresh indexer (the worker's) reads what the last one left.
    const again = new Indexer({ repo, db });
    const r = await again.run({});
    assert.equal(r.filesChanged, 0);
    assert.equal(r.edges, first.edges);
    const math = join(repo, 'src/lib/math.ts');
    writeFileSync(math, readFileSync(math, 'utf8').replace('export function add(', 'export function plus('));
    await again.run({ paths: ['src/lib/math.ts'] });
    assert.ok(
      edgesTo(db, 'code:external:(unresolved)::add').includes('code:function:src/app.ts::main calls 0.2'),
    );
  } finally {
    cleanup();
  }
});

test('a pass stopped part-way leaves its files to be extracted and resolved by the next one', async () => {
  const { repo, db, cleanup } = setup();
  try {
    const stop = new AbortController();
    const indexer = new Indexer({ repo, db });
    await assert.rejects(
      indexer.run({
        signal: stop.signal,
        onProgress: (p) => {
          if (p.phase === 'extract' && p.done > 0) stop.abort();
        },
      }),
      { name: 'AbortError' },
    );
    const r = await indexer.run({});
    assert.equal(r.filesChanged, 7);
    const clean = setup();
    try {
      const expected = await clean.indexer.run({});
      assert.equal(r.nodes, expected.nodes);
      assert.equal(r.edges, expected.edges);
    } finally {
      clean.cleanup();
    }
  } finally {
    cleanup();
  }
});

test('after edits, a deletion, a rename and an addition, the incremental graph equals a fresh index', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    await indexer.run({});
    const math = join(repo, 'src/lib/math.ts');
    writeFileSync(math, readFileSync(math, 'utf8').replace('reset(): void {', 'clear(): void {'));
    rmSync(join(repo, 'src/lib/format.ts'));
    renameSync(join(repo, 'src/app.ts'), join(repo, 'src/main.ts'));
    writeFileSync(join(repo, 'src/lib/format.ts.bak'), 'not indexed');
    writeFileSync(
      join(repo, 'src/extra.ts'),
      "import { main } from './main';\nexport const run = () => main();\n",
    );
    await indexer.run({});
    const fresh = openDatabase(':memory:');
    await new Indexer({ repo, db: fresh }).run({});
    const edges = (d: Db) =>
      (
        d
          .prepare(
            `SELECT s.uid || ' ' || e.edge_type || ' ' || t.uid || ' @' || e.line || ':' || e.col || ' ' || e.confidence
             FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id`,
          )
          .pluck()
          .all() as string[]
      ).sort();
    const nodes = (d: Db) =>
      (d.prepare('SELECT uid FROM graph_nodes ORDER BY uid').pluck().all() as string[]).sort();
    assert.deepEqual(nodes(db), nodes(fresh));
    assert.deepEqual(edges(db), edges(fresh));
    fresh.close();
  } finally {
    cleanup();
  }
});

test('Go: a function added to a package resolves the bare calls of its sibling files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-go-'));
  const repo = join(dir, 'repo');
  cpSync(fileURLToPath(new URL('../../fixtures/graph/go', import.meta.url)), repo, { recursive: true });
  const db = openDatabase(join(dir, 'hub.db'));
  try {
    const indexer = new Indexer({ repo, db });
    const store = join(repo, 'store/store.go');
    writeFileSync(store, readFileSync(store, 'utf8').replace('\tformat(k)\n', '\tformat(k)\n\tlater(k)\n'));
    await indexer.run({});
    assert.ok(edgesTo(db, 'code:external:later').includes('code:method:store/store.go::Store.log calls 0.5'));
    writeFileSync(join(repo, 'store/later.go'), 'package store\n\nfunc later(k string) {}\n');
    await indexer.run({ paths: ['store/later.go'] });
    assert.deepEqual(edgesTo(db, 'code:function:store/later.go::later'), [
      'code:file:store/later.go contains 1',
      'code:method:store/store.go::Store.log calls 1',
    ]);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('paths outside the repository are ignored, and the root path means the whole repository', async () => {
  const { repo, db, indexer, cleanup } = setup();
  try {
    await indexer.run({});
    const r = await indexer.run({ paths: ['../../etc/passwd', '/etc/hosts', 'src/../../outside.ts'] });
    assert.equal(r.filesSeen, 0);
    assert.equal(
      db.prepare("SELECT count(*) FROM graph_files WHERE path LIKE '..%' OR path LIKE '/%'").pluck().get(),
      0,
    );
    rmSync(join(repo, 'src/app.test.ts'));
    const root = await indexer.run({ paths: ['.'] });
    assert.equal(root.filesDeleted, 1);
  } finally {
    cleanup();
  }
});
