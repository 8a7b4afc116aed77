// A graph written by older extractors is read again once: a hub upgraded in place must not keep the
// old reading of the files that did not change (issue 22 changed how TypeScript callers are named).
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../../server/db/open.ts';
import { EXTRACTION_VERSION } from '../../../server/graph/extract/version.ts';
import { Indexer } from '../../../server/graph/indexer.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/graph/callers/', import.meta.url));

test('a full pass over a graph of another extraction version extracts every file again, once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-version-'));
  const repo = join(dir, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  const dbPath = join(dir, 'hub.db');
  try {
    const db = openDatabase(dbPath);
    const first = await new Indexer({ repo, db }).run({});
    assert.ok(first.filesChanged >= 6);
    const stats = () => JSON.parse(db.prepare('SELECT stats FROM graph_state').pluck().get() as string);
    assert.equal(stats().extraction, EXTRACTION_VERSION);
    assert.equal((await new Indexer({ repo, db }).run({})).filesChanged, 0);

    // What an older hub left: stats without the version (or another one), and a node the old
    // TypeScript extractor did not make.
    db.prepare("UPDATE graph_state SET stats = json_remove(stats, '$.extraction')").run();
    const nested =
      "SELECT count(*) FROM graph_nodes WHERE uid = 'code:function:src/report.ts::buildReport.format'";
    db.prepare("DELETE FROM graph_nodes WHERE uid = 'code:function:src/report.ts::buildReport.format'").run();
    assert.equal(db.prepare(nested).pluck().get(), 0);
    // A scoped pass (one saved file) leaves the version alone: the rest is still the old reading.
    await new Indexer({ repo, db }).run({ paths: ['src/main.ts'] });
    assert.equal(stats().extraction, undefined);

    const upgraded = await new Indexer({ repo, db }).run({});
    assert.equal(upgraded.filesChanged, first.filesChanged);
    assert.equal(db.prepare(nested).pluck().get(), 1);
    assert.equal(stats().extraction, EXTRACTION_VERSION);
    assert.equal((await new Indexer({ repo, db }).run({})).filesChanged, 0);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
