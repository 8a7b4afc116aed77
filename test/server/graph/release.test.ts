// An idle project's graph service lets its indexer thread go (its model of the repository is most of the
// graph's memory) and starts a new one on the next pass, which reads the model back from the database.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../../../server/config.ts';
import { openDatabase } from '../../../server/db/open.ts';
import { EventBus } from '../../../server/events/bus.ts';
import { createGraphService } from '../../../server/graph/service.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/graph/ts', import.meta.url));

test('release() lets an idle indexer go; the next pass starts a new one that knows the repository', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-release-'));
  const repo = join(dir, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
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
    // Busy: a pass in flight keeps its thread.
    assert.equal(await graph.release(), false);
    await graph.ready();
    assert.equal(await graph.release(), true);
    assert.equal(await graph.release(), false, 'nothing left to let go');
    // The new thread reads the model back: an unchanged repository changes no file.
    const again = await graph.reindex();
    assert.equal(again.filesChanged, 0);
    writeFileSync(join(repo, 'src/lib/after-release.ts'), 'export function afterRelease() { return 2; }\n');
    const next = await graph.reindex({ paths: ['src/lib/after-release.ts'] });
    assert.equal(next.filesChanged, 1);
    const uid = 'code:function:src/lib/after-release.ts::afterRelease';
    assert.ok(db.prepare('SELECT 1 FROM graph_nodes WHERE uid = ?').get(uid));
  } finally {
    await graph.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
