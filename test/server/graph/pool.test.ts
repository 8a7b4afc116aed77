// The extraction pool: helper threads and the calling thread share a batch, and the outcomes are the
// same as extracting every file in one thread, in the jobs' order. The helpers are the process's: every
// indexer leases ports to the same threads, which start with the first lease and stop after the last.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ExtractHelpers } from '../../../server/graph/helpers.ts';
import { languageOf } from '../../../server/graph/parser.ts';
import { type ExtractJob, ExtractPool, extractHere } from '../../../server/graph/pool.ts';
import { Walker } from '../../../server/graph/walk.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/graph', import.meta.url));

test('helpers extract a batch exactly as one thread does, in order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-pool-'));
  cpSync(FIXTURES, dir, { recursive: true });
  // A language only this thread parses, and a file whose content the graph already has.
  writeFileSync(join(dir, 'native.c'), 'int add(int a, int b) { return a + b; }\n');
  const files = new Walker(dir, { ignoredDirs: ['.git'], gitignore: false }).walk().files;
  const jobs: ExtractJob[] = files
    .filter((f) => languageOf(f.path))
    .map((f) => ({ path: f.path, language: languageOf(f.path)!, size: f.size }));
  const unchanged = jobs.find((j) => j.path.endsWith('main.go'))!;
  unchanged.known = createHash('sha1')
    .update(readFileSync(join(dir, unchanged.path), 'utf8'))
    .digest('hex');
  jobs.push({ path: 'vanished.ts', language: 'typescript', size: 10 });
  assert.ok(jobs.length > 20);

  const helpers = new ExtractHelpers(2);
  const lease = helpers.lease();
  const pool = new ExtractPool(lease.ports);
  try {
    const here = await extractHere(dir, jobs);
    const pooled = await pool.extract(dir, jobs);
    // Extraction times differ from run to run; everything else is the same.
    const strip = (outcomes: typeof here) => outcomes.map((o) => ({ ...o, ms: 0 }));
    assert.deepEqual(strip(pooled), strip(here));
    assert.equal(pooled.at(-1)!.status, 'unreadable');
    assert.equal(pooled[jobs.indexOf(unchanged)]!.status, 'unchanged');
    const c = pooled[jobs.findIndex((j) => j.path === 'native.c')]!;
    assert.equal(c.status, 'extracted');
    assert.ok(c.status === 'extracted' && c.model.includes('code:function:native.c::add'));
    assert.equal(pooled.filter((o) => o.status === 'extracted').length, jobs.length - 2);

    // Batches handed out back to back (the indexer starts the next before writing the last) share the
    // helpers without mixing their outcomes.
    const [a, b] = await Promise.all([pool.extract(dir, jobs.slice(0, 9)), pool.extract(dir, jobs.slice(9))]);
    assert.deepEqual(strip([...a, ...b]), strip(here));
  } finally {
    pool.close();
    lease.end();
    await helpers.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a helper that stops fails its batch instead of leaving it waiting, and later batches go on without it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-pool-'));
  for (let i = 0; i < 40; i++)
    writeFileSync(join(dir, `f${i}.ts`), `export function f${i}() { return ${i}; }\n`);
  const jobs: ExtractJob[] = Array.from({ length: 40 }, (_, i) => ({
    path: `f${i}.ts`,
    language: 'typescript',
    size: 40,
  }));
  const helpers = new ExtractHelpers(1);
  const pool = new ExtractPool(helpers.lease().ports);
  try {
    const pending = pool.extract(dir, jobs);
    // close() terminates the helper while its chunks are out (as a crash would end it).
    await helpers.close();
    await assert.rejects(pending, /extraction helper exited/);
    // Without its helper, the pool still extracts, in this thread.
    const again = await pool.extract(dir, jobs);
    assert.equal(again.filter((o) => o.status === 'extracted').length, 40);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('indexers share the helpers: two leases, one set of threads, stopped after the last lease ends', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-pool-'));
  writeFileSync(join(dir, 'a.ts'), 'export function a() { return 1; }\n');
  writeFileSync(join(dir, 'b.py'), 'def b():\n    return 2\n');
  const helpers = new ExtractHelpers(2);
  try {
    const first = helpers.lease();
    const second = helpers.lease();
    assert.equal(helpers.running, 2, 'two leases, still two threads');
    assert.equal(helpers.leased, 2);
    const a = new ExtractPool(first.ports);
    const b = new ExtractPool(second.ports);
    const [fromA, fromB] = await Promise.all([
      a.extract(dir, [{ path: 'a.ts', language: 'typescript', size: 30 }]),
      b.extract(dir, [{ path: 'b.py', language: 'python', size: 20 }]),
    ]);
    assert.ok(fromA[0]!.status === 'extracted' && fromA[0]!.model.includes('code:function:a.ts::a'));
    assert.ok(fromB[0]!.status === 'extracted' && fromB[0]!.model.includes('code:function:b.py::b'));
    a.close();
    first.end();
    first.end();
    assert.equal(helpers.running, 2, 'one indexer left: the helpers stay');
    // The other indexer still gets answers after the first let go of its ports.
    const again = await b.extract(dir, [{ path: 'a.ts', language: 'typescript', size: 30 }]);
    assert.equal(again[0]!.status, 'extracted');
    b.close();
    second.end();
    assert.equal(helpers.running, 0, 'no indexer left: no helper, no grammar held');
    // A later indexer starts them again.
    const third = helpers.lease();
    assert.equal(helpers.running, 2);
    const c = new ExtractPool(third.ports);
    const later = await c.extract(dir, [{ path: 'b.py', language: 'python', size: 20 }]);
    assert.equal(later[0]!.status, 'extracted');
    c.close();
    third.end();
  } finally {
    await helpers.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
