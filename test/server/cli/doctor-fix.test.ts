// `cos doctor --fix`: the graph doctor's fix (doctorPass, the pass cos_graph_doctor runs), through a
// running hub or on the database itself; and a running-hub.json a dead hub left, ignored.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../../server/db/open.ts';
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
    const check = await cos(['doctor', '--repo', repo]);
    assert.equal(check.status, 1, check.stdout);
    assert.match(check.stdout, /FAIL\s+code graph\s+stale_paths: 1 \(cos doctor --fix repairs it\)/);
    const fix = await cos(['doctor', '--fix', '--repo', repo]);
    assert.equal(fix.status, 0, fix.stdout + fix.stderr);
    assert.match(fix.stdout, /ok\s+code graph fix\s+repaired stale_paths: 1/);
    assert.match(fix.stdout, /ok\s+code graph\s+.*healthy/);
  });
});

describe('without a running hub', { timeout: 180_000 }, () => {
  test('a running-hub.json left by a hub that died is ignored', async () => {
    const repo = makeRepo();
    mkdirSync(join(repo, '.cos'), { recursive: true });
    // A pid that is not running, and a port nothing listens on.
    const free = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    writeFileSync(
      join(repo, '.cos/running-hub.json'),
      JSON.stringify({ pid: 2 ** 22 + 17, url: `http://127.0.0.1:${free}`, repo, started_at: '' }),
    );
    const run = await cos(['module', 'disable', 'memory', '--repo', repo]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'memory disabled');
    assert.deepEqual(JSON.parse(readFileSync(join(repo, '.cos/subsystems-state.json'), 'utf8')).disabled, [
      'memory',
    ]);
  });

  test('cos doctor --fix applies the graph doctor fix to the database itself', () => {
    const repo = makeRepo();
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [COS, ...args, '--repo', repo], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run('index').status, 0);
    addStaleFileRows(repo, ['src/gone.ts', 'src/gone-too.ts']);
    const check = run('doctor');
    assert.equal(check.status, 1);
    assert.match(check.stdout, /FAIL\s+code graph\s+stale_paths: 2 \(cos doctor --fix repairs it\)/);
    const fix = run('doctor', '--fix');
    assert.equal(fix.status, 0, fix.stdout + fix.stderr);
    assert.match(fix.stdout, /ok\s+code graph fix\s+repaired stale_paths: 2/);
    const again = run('doctor');
    assert.equal(again.status, 0, again.stdout);
    assert.match(again.stdout, /ok\s+code graph\s+\d+ files, \d+ nodes, \d+ edges; healthy/);
  });
});
