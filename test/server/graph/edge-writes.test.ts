// Resolution's writes on an extraction helper's connection (a pass that resolves several batches):
// the graph is exactly the one written in the indexer's own thread, and a pass whose writes fail
// leaves the next pass to read the graph back and finish it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Db, openDatabase } from '../../../server/db/open.ts';
import { ExtractHelpers } from '../../../server/graph/helpers.ts';
import { Indexer } from '../../../server/graph/indexer.ts';
import { ExtractPool } from '../../../server/graph/pool.ts';
import type { EdgeBatch } from '../../../server/graph/store.ts';

/** 200 modules in a chain of imports and calls, each calling globals several batches share as stubs. */
function writeRepo(repo: string): void {
  mkdirSync(join(repo, 'src'), { recursive: true });
  for (let i = 0; i < 200; i++) {
    const prev = i > 0 ? `import { f${i - 1} } from './m${i - 1}.ts';\n` : '';
    const call = i > 0 ? `f${i - 1}() + ` : '';
    writeFileSync(
      join(repo, 'src', `m${i}.ts`),
      `${prev}export function f${i}(): number {\n  return ${call}helper${i}() + shared${i % 7}(${i});\n}\n\nfunction helper${i}(): number {\n  console.log('m${i}');\n  return ${i};\n}\n`,
    );
  }
}

const graphOf = (db: Db) => ({
  edges: db
    .prepare(
      `SELECT s.uid || ' ' || e.edge_type || ' ' || t.uid || ' ' || e.confidence || ' ' || e.extractor || ' ' ||
         coalesce(e.line, '') || ':' || coalesce(e.col, '') || ' ' || coalesce(f.path, '') AS edge
       FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
       LEFT JOIN graph_files f ON f.id = e.file_id ORDER BY edge`,
    )
    .pluck()
    .all() as string[],
  nodes: db
    .prepare("SELECT uid || ' ' || kind || ' ' || label || ' ' || qualified_name FROM graph_nodes ORDER BY 1")
    .pluck()
    .all() as string[],
  // Every node findable by name, stubs included.
  fts: db
    .prepare('SELECT n.uid FROM graph_fts f JOIN graph_nodes n ON n.id = f.rowid ORDER BY 1')
    .pluck()
    .all() as string[],
});

test('a pass resolving several batches writes them on a helper exactly as in its own thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-edge-writes-'));
  const repo = join(dir, 'repo');
  writeRepo(repo);
  const here = openDatabase(join(dir, 'here.db'));
  const dbPath = join(dir, 'helper.db');
  const there = openDatabase(dbPath);
  const helpers = new ExtractHelpers(1);
  const pool = new ExtractPool(helpers.lease().ports);
  try {
    await new Indexer({ repo, db: here }).run({});
    const writeEdges = pool.edgeWriter({ path: dbPath })!;
    let batches = 0;
    const r = await new Indexer({
      repo,
      db: there,
      extract: pool.extract,
      writeEdges: (b) => {
        batches++;
        return writeEdges(b);
      },
    }).run({});
    assert.equal(r.filesResolved, 200);
    assert.ok(batches >= 3, `${batches} batches written on the helper`);
    const expected = graphOf(here);
    assert.ok(expected.nodes.some((n) => n.startsWith('code:external:shared3 ')));
    assert.deepEqual(graphOf(there), expected);
  } finally {
    pool.close();
    await helpers.close();
    here.close();
    there.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a pass whose writes fail is finished by the next one, which reads the graph back first', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-edge-writes-'));
  const repo = join(dir, 'repo');
  writeRepo(repo);
  const fresh = openDatabase(join(dir, 'fresh.db'));
  const db = openDatabase(join(dir, 'hub.db'));
  try {
    await new Indexer({ repo, db: fresh }).run({});
    let calls = 0;
    let failing = true;
    // Writes in this thread's connection (as a helper would on its own), the second batch failing
    // after the first gave ids to stubs.
    const { EdgeWriter } = await import('../../../server/graph/store.ts');
    const writer = new EdgeWriter(db);
    const indexer = new Indexer({
      repo,
      db,
      writeEdges: async (b: EdgeBatch) => {
        calls++;
        if (failing && calls === 2) throw new Error('disk full');
        writer.write(b);
      },
    });
    await assert.rejects(indexer.run({}), /disk full/);
    failing = false;
    const r = await indexer.run({});
    assert.ok(r.filesResolved > 0);
    assert.deepEqual(graphOf(db), graphOf(fresh));
  } finally {
    fresh.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
