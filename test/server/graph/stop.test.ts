// Stopping the hub while a cold index pass runs is a normal stop, not a failure: the pass ends between
// batches and the log says so at info, with no error record and no stack.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../../server/config.ts';
import { openDatabase } from '../../../server/db/open.ts';
import { EventBus } from '../../../server/events/bus.ts';
import { createGraphService } from '../../../server/graph/service.ts';

test('closing the graph service during an index pass logs at info, not an error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-graph-stop-'));
  const repo = join(dir, 'repo');
  // Enough files that the pass is still extracting when the close arrives.
  for (let d = 0; d < 40; d++) {
    mkdirSync(join(repo, 'src', `mod${d}`), { recursive: true });
    for (let f = 0; f < 60; f++)
      writeFileSync(
        join(repo, 'src', `mod${d}`, `file${f}.ts`),
        `import { helper } from '../mod${(d + 1) % 40}/file${f}.ts';\n` +
          `export function helper(n: number): number {\n  return n > 0 ? helper(n - 1) : ${f};\n}\n` +
          `export class Service${f} {\n  run(): number {\n    return helper(${d});\n  }\n}\n`,
      );
  }
  const records: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) records.push(JSON.parse(line));
      done();
    },
  });
  const dbPath = join(dir, 'hub.db');
  const db = openDatabase(dbPath);
  const events = new EventBus();
  const config = loadConfig({ COS_REPO: repo, COS_STATE_DIR: join(dir, 'state') });
  const graph = createGraphService({ config, db, dbPath, events, logger: pino({ level: 'info' }, sink) });
  try {
    const extracting = new Promise<void>((resolve) => {
      events.subscribe((e) => {
        // Past the first batches, whose extraction also loads the grammars: a batch is then short,
        // so the pass sees the close at its next batch boundary well inside close()'s 5 s.
        const p = e.data as { phase: string; done: number; total: number };
        if (e.type === 'index-progress' && p.phase === 'extract' && p.done >= 200 && p.done < p.total)
          resolve();
      });
    });
    graph.start();
    await extracting;
    await graph.close();
    const stopped = records.filter((r) => r.msg === 'graph index pass stopped: the hub is closing');
    assert.equal(
      stopped.length,
      1,
      JSON.stringify(records.map((r) => [r.level, r.msg, (r as { err?: string }).err?.slice(0, 200)])),
    );
    assert.equal(stopped[0]!.level, 30);
    assert.deepEqual(
      records.filter((r) => r.level >= 50),
      [],
    );
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
