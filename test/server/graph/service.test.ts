// The graph service as the hub runs it: indexing in a worker thread with its own connection, a
// background first pass, the watcher turning a saved file into an incremental pass, progress on the
// event bus, and freshness for every answer.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../../../server/config.ts';
import { openDatabase } from '../../../server/db/open.ts';
import { EventBus, type HubEvent } from '../../../server/events/bus.ts';
import { createGraphService } from '../../../server/graph/service.ts';
import { ModuleState } from '../../../server/modules.ts';
import type { HubServices, ProgressReport, ToolContext } from '../../../server/tools/context.ts';
import { graphReindexTool } from '../../../server/tools/graph/reindex.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/graph/ts', import.meta.url));

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('the service indexes in a worker, follows saved files, reports progress and freshness', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-svc-'));
  const repo = join(dir, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  const dbPath = join(dir, 'hub.db');
  const db = openDatabase(dbPath);
  const events = new EventBus();
  const seen: HubEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const config = loadConfig({ COS_REPO: repo, COS_STATE_DIR: join(dir, 'state') });
  const graph = createGraphService({ config, db, dbPath, events, logger: pino({ level: 'silent' }) });
  try {
    assert.equal(graph.freshness().generation, 0);
    graph.start();
    // start() returns before indexing is done: the hub accepts connections at once.
    assert.equal(graph.freshness().indexing, true);
    await graph.ready();
    const fresh = graph.freshness();
    assert.equal(fresh.generation, 1);
    assert.equal(fresh.indexing, false);
    assert.equal(fresh.files_pending, 0);
    assert.ok(fresh.last_indexed_at && !Number.isNaN(Date.parse(fresh.last_indexed_at)));
    assert.ok(
      seen.some((e) => e.type === 'index-progress' && (e.data as { phase: string }).phase === 'done'),
    );

    // The main thread reads what the worker wrote.
    const uid = 'code:function:src/lib/fresh.ts::freshlySaved';
    const q = db.prepare('SELECT 1 FROM graph_nodes WHERE uid = ?');
    writeFileSync(join(repo, 'src/lib/fresh.ts'), 'export function freshlySaved() { return 1; }\n');
    await until(() => q.get(uid) !== undefined);
    await until(() => !graph.freshness().indexing);
    assert.ok(graph.freshness().generation >= 2);

    rmSync(join(repo, 'src/lib/fresh.ts'));
    await until(() => q.get(uid) === undefined);

    const phases: string[] = [];
    const forced = await graph.reindex({ force: true, onProgress: (p) => phases.push(p.phase) });
    assert.equal(forced.filesChanged, 7);
    assert.deepEqual([...new Set(phases)], ['scan', 'extract', 'resolve', 'done']);
  } finally {
    await graph.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a closed service refuses new passes instead of hanging', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-svc-'));
  const dbPath = join(dir, 'hub.db');
  const db = openDatabase(dbPath);
  const config = loadConfig({ COS_REPO: dir, COS_STATE_DIR: join(dir, 'state') });
  const graph = createGraphService({
    config,
    db,
    dbPath,
    events: new EventBus(),
    logger: pino({ level: 'silent' }),
    watch: false,
  });
  try {
    await graph.close();
    await assert.rejects(graph.reindex(), /closed/);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cos_graph_reindex runs a pass through the service and reports progress and freshness', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-tool-'));
  const repo = join(dir, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  const dbPath = join(dir, 'hub.db');
  const db = openDatabase(dbPath);
  const config = loadConfig({ COS_REPO: repo, COS_STATE_DIR: join(dir, 'state') });
  const logger = pino({ level: 'silent' });
  const events = new EventBus();
  const graph = createGraphService({ config, db, dbPath, events, logger, watch: false });
  const reports: ProgressReport[] = [];
  const ctx: ToolContext = {
    config,
    db,
    logger,
    events,
    modules: ModuleState.forStateDir(join(dir, 'state')),
    services: { graph } as HubServices,
    caller: { transport: 'internal' },
    signal: new AbortController().signal,
    progress: (r) => reports.push(r),
  };
  try {
    const first = await graphReindexTool.handler(ctx, {});
    assert.equal(first.files_changed, 7);
    assert.equal(first.freshness.generation, first.generation);
    assert.equal(first.freshness.indexing, false);
    assert.ok(reports.some((r) => r.message === 'extract' && r.total === 7));
    const second = await graphReindexTool.handler(ctx, { paths: ['src/app.ts'] });
    assert.equal(second.files_changed, 0);
    const forced = await graphReindexTool.handler(ctx, { force: true });
    assert.equal(forced.files_changed, 7);
  } finally {
    await graph.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the board's task files are left to the board: not indexed, not followed when they change", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-svc-'));
  const repo = join(dir, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  writeFileSync(
    join(repo, 'docs/tasks/TASK-1-a.md'),
    '---\ntitle: a\n---\n\n## Outcome\n\n`src/lib/fresh.ts`\n',
  );
  writeFileSync(join(repo, 'docs/notes.md'), '# Notes\n');
  const dbPath = join(dir, 'hub.db');
  const db = openDatabase(dbPath);
  const config = loadConfig({ COS_REPO: repo, COS_STATE_DIR: join(dir, 'state') });
  const graph = createGraphService({
    config,
    db,
    dbPath,
    events: new EventBus(),
    logger: pino({ level: 'silent' }),
  });
  try {
    graph.start();
    await graph.ready();
    const files = () => db.prepare('SELECT path FROM graph_files ORDER BY path').pluck().all() as string[];
    assert.ok(files().includes('docs/notes.md'), 'other Markdown is indexed');
    assert.deepEqual(
      files().filter((p) => p.startsWith('docs/tasks')),
      [],
    );
    // A change elsewhere is followed; a task file written meanwhile still is not.
    writeFileSync(join(repo, 'docs/tasks/TASK-2-b.md'), '---\ntitle: b\n---\n');
    writeFileSync(join(repo, 'docs/more.md'), '# More\n');
    await until(() => files().includes('docs/more.md'));
    await until(() => !graph.freshness().indexing);
    assert.deepEqual(
      files().filter((p) => p.startsWith('docs/tasks')),
      [],
    );
  } finally {
    await graph.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
