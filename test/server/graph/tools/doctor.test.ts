// cos_graph_doctor on a real indexed repository whose database is then corrupted one category at a time:
// each corruption is found under its category, and fix: true deletes exactly the fixable categories.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Db } from '../../../../server/db/open.ts';
import { FIXTURES, type GraphHub, graphHub } from './support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

let dir: string;
let g: GraphHub;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cos-doctor-'));
  cpSync(`${FIXTURES}ts`, dir, { recursive: true });
  g = await graphHub(dir);
  // Extraction times are real (the first file also pays for loading its grammar): pin them, so only the
  // slow file seeded below is slow.
  g.hub.db.exec('UPDATE graph_files SET duration_ms = 1');
});
after(async () => {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
});

const id = (db: Db, uid: string) =>
  db.prepare('SELECT id FROM graph_nodes WHERE uid = ?').pluck().get(uid) as number;

function corrupt(db: Db): void {
  const main = id(db, 'code:function:src/app.ts::main');
  const add = id(db, 'code:function:src/lib/math.ts::add');
  const file = db
    .prepare('SELECT id FROM graph_files WHERE path = ?')
    .pluck()
    .get('src/lib/math.ts') as number;
  const insEdge = db.prepare(
    'INSERT INTO graph_edges (source_id, target_id, edge_type, confidence, extractor, line, col, file_id) VALUES (?, ?, ?, 1, ?, ?, ?, ?)',
  );
  const insNode = db.prepare(
    'INSERT INTO graph_nodes (uid, kind, label, qualified_name, file_path, start_line, end_line, metadata, file_id) VALUES (?, ?, ?, ?, ?, 1, 1, ?, ?)',
  );
  db.pragma('foreign_keys = OFF');
  // dangling_source, dangling_target: edges whose end rows are gone.
  insEdge.run(999_001, add, 'calls', 'ts/resolve', 1, 1, null);
  insEdge.run(main, 999_002, 'calls', 'ts/resolve', 2, 1, null);
  db.pragma('foreign_keys = ON');
  // duplicate_edges: the same row twice (every column alike).
  insEdge.run(main, add, 'calls', 'ts/resolve', 7, 9, null);
  // self_loops: an import of itself.
  insEdge.run(add, add, 'imports', 'ts/resolve', 1, 1, null);
  // A recursive call is not a self-loop finding.
  insEdge.run(main, main, 'calls', 'ts/resolve', 9, 1, null);
  // orphaned_inrepo: a symbol owned by a file with no edge at all.
  insNode.run(
    'code:function:src/lib/math.ts::lost',
    'function',
    'lost',
    'lost',
    'src/lib/math.ts',
    null,
    file,
  );
  // orphaned_phantom: a stub left with metadata.stub and no edges, and an owner-less file node.
  insNode.run('doc:file:docs/gone.md', 'doc_file', 'gone.md', 'docs/gone.md', null, '{"stub":true}', null);
  insNode.run('code:file:src/ghost', 'file', 'ghost', 'src/ghost', null, null, null);
  // orphaned_external_unresolved: an external stub nothing points at any more.
  insNode.run('code:external:lodash::map', 'external', 'map', 'map', null, null, null);
  // malformed_uid_path: markdown prose captured into a path.
  insNode.run('doc:file:docs/`weird` ../x.md', 'doc_file', 'x.md', 'x.md', '../x.md', null, null);
  // stale_paths: a file row and node whose file is no longer on disk.
  db.prepare(
    "INSERT INTO graph_files (path, language, hash, size, mtime_ms, duration_ms, error, generation, indexed_at) VALUES ('src/removed.ts', 'typescript', 'h', 1, 1, 900, 'SyntaxError at 1:1', 1, 1)",
  ).run();
  const removed = db
    .prepare("SELECT id FROM graph_files WHERE path = 'src/removed.ts'")
    .pluck()
    .get() as number;
  insNode.run(
    'code:file:src/removed.ts',
    'file',
    'removed.ts',
    'src/removed.ts',
    'src/removed.ts',
    null,
    removed,
  );
  insEdge.run(
    id(db, 'folder:src'),
    id(db, 'code:file:src/removed.ts'),
    'contains',
    'fs/walk',
    null,
    null,
    null,
  );
}

test('a healthy graph has no issues and names the fixable and informational categories', async () => {
  const data = await g.data('cos_graph_doctor', {});
  assert.equal(data.healthy, true);
  // slowest_extractions depends on the clock: on a loaded machine a real extraction can pass its
  // threshold. It is informational and never affects `healthy`.
  assert.deepEqual(
    data.issues.filter((i: Item) => i.category !== 'slowest_extractions'),
    [],
  );
  assert.equal(data.stats.issue_count, 0);
  assert.deepEqual(data.meta.fixable_categories.sort(), [
    'dangling_source',
    'dangling_target',
    'malformed_uid_path',
    'orphaned_external_unresolved',
    'orphaned_phantom',
    'stale_paths',
  ]);
  assert.deepEqual(data.meta.informational_categories.sort(), [
    'files_with_parse_errors',
    'orphaned_external_unresolved',
    'slowest_extractions',
  ]);
});

test('every corruption is found under its category; fix deletes exactly the fixable ones', async () => {
  corrupt(g.hub.db);
  const before = await g.data('cos_graph_doctor', { sample_size: 10 });
  const by = Object.fromEntries(before.issues.map((i: Item) => [i.category, i]));
  assert.deepEqual(Object.keys(by).sort(), [
    'dangling_source',
    'dangling_target',
    'duplicate_edges',
    'files_with_parse_errors',
    'malformed_uid_path',
    'orphaned_external_unresolved',
    'orphaned_inrepo',
    'orphaned_phantom',
    'self_loops',
    'slowest_extractions',
    'stale_paths',
  ]);
  assert.equal(by.dangling_source.count, 1);
  assert.equal(by.dangling_target.count, 1);
  assert.equal(by.duplicate_edges.count, 1);
  assert.equal(by.self_loops.count, 1);
  assert.deepEqual(by.orphaned_inrepo.sample, ['code:function:src/lib/math.ts::lost']);
  assert.deepEqual(by.orphaned_phantom.sample.sort(), ['code:file:src/ghost', 'doc:file:docs/gone.md']);
  assert.deepEqual(by.orphaned_external_unresolved.sample, ['code:external:lodash::map']);
  assert.equal(by.orphaned_external_unresolved.severity, 'info');
  assert.deepEqual(by.malformed_uid_path.sample, ['doc:file:docs/`weird` ../x.md']);
  assert.deepEqual(by.stale_paths.sample, ['code:file:src/removed.ts']);
  assert.equal(by.stale_paths.path_count, 1);
  assert.match(by.slowest_extractions.sample[0], /src\/removed.ts \(900 ms\)/);
  assert.match(by.files_with_parse_errors.sample[0], /SyntaxError/);
  assert.equal(before.healthy, false);
  // 11 categories, 3 of them informational.
  assert.equal(before.stats.issue_count_total, 11);
  assert.equal(before.stats.issue_count, 8);

  const fixed = await g.data('cos_graph_doctor', { fix: true });
  assert.deepEqual(Object.keys(fixed.fixed).sort(), [
    'dangling_source',
    'dangling_target',
    'malformed_uid_path',
    'orphaned_external_unresolved',
    'orphaned_phantom',
    'stale_paths',
  ]);
  const left = fixed.issues
    .map((i: Item) => i.category)
    .filter((c: string) => c !== 'slowest_extractions') // timing-dependent, see above
    .sort();
  // Deleting the stale file row took its parse error and slow extraction with it.
  assert.deepEqual(left, ['duplicate_edges', 'orphaned_inrepo', 'self_loops']);
  assert.equal(fixed.healthy, false);
  assert.equal(fixed.stats.issue_count, 3);
  // What the fixture itself holds survived the repair.
  const stats = await g.data('cos_graph_stats', {});
  assert.equal(stats.nodes_by_kind.function, 4);
  assert.equal(g.hub.db.prepare('SELECT count(*) FROM graph_files').pluck().get(), 7);
});
