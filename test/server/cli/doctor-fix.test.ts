// `cos doctor --fix`: the graph doctor's fix (doctorPass, the pass cos_graph_doctor runs), through a
// running hub or on the database itself.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../../server/config.ts';
import { openDatabase } from '../../../server/db/open.ts';
import { createHub } from '../../../server/hub.ts';
import { COS, cos, makeRepo } from '../../support/cli.ts';
import { type HubProcess, startHubProcess } from '../../support/hub-process.ts';

/** A file row whose file is gone (stale_paths, fixable), as a checkout behind the graph's back leaves. */
function addStaleFileRows(repo: string, paths: string[]): void {
  const db = openDatabase(join(repo, '.cos/hub.db'), { migrate: false });
  const insert = db.prepare(
    "INSERT INTO graph_files (path, language, hash, size, mtime_ms, duration_ms, generation, indexed_at) VALUES (?, 'typescript', 'x', 1, 0, 1, 1, 0)",
  );
  for (const p of paths) insert.run(p);
  db.close();
}

describe('with a running hub', { timeout: 240_000 }, () => {
  let repo: string;
  let hub: HubProcess;
  before(async () => {
    repo = makeRepo();
    hub = await startHubProcess(repo);
    // The hub's first index pass, so that its graph has rows to check.
    for (let i = 0; i < 600; i++) {
      const r = await fetch(`${hub.url}/api/graph/search?query=b`);
      if (r.ok && (await r.text()).includes('src/b.ts')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    await hub?.stop();
  });

  test('cos doctor --fix repairs through the running hub what its graph doctor repairs', async () => {
    addStaleFileRows(repo, ['src/gone.ts']);
    const fix = await cos(['doctor', '--fix', '--repo', repo]);
    assert.equal(fix.status, 0, fix.stdout + fix.stderr);
    assert.match(fix.stdout, /ok\s+hub\s+running at/);
    assert.match(fix.stdout, /ok\s+code graph fix\s+repaired stale_paths: 1/);
    assert.match(fix.stdout, /ok\s+code graph\s+.*healthy/);
    // The hub's own doctor agrees: the repair was made in the hub's graph.
    const res = await fetch(`${hub.url}/api/graph/doctor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(((await res.json()) as { data: { healthy: boolean } }).data.healthy, true);
  });
});

describe('without a running hub', { timeout: 180_000 }, () => {
  test('cos doctor --fix applies the graph doctor fix to the database itself', async () => {
    const repo = makeRepo();
    // Indexed in this process (a `cos index` child would cost a process start for nothing).
    const indexer = createHub(loadConfig({ COS_REPO: repo }, {}, repo), {
      logger: pino({ level: 'silent' }),
    });
    await indexer.services.graph.reindex({});
    await indexer.close();
    addStaleFileRows(repo, ['src/gone.ts', 'src/gone-too.ts']);
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [COS, ...args, '--repo', repo], { encoding: 'utf8', timeout: 120_000 });
    const check = run('doctor');
    assert.equal(check.status, 1);
    assert.match(check.stdout, /FAIL\s+code graph\s+stale_paths: 2 \(cos doctor --fix repairs it\)/);
    const fix = run('doctor', '--fix');
    assert.equal(fix.status, 0, fix.stdout + fix.stderr);
    assert.match(fix.stdout, /ok\s+code graph fix\s+repaired stale_paths: 2/);
    assert.match(fix.stdout, /ok\s+code graph\s+2 files, \d+ nodes, \d+ edges; healthy/);
  });
});
