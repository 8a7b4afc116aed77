// One full index pass at a time across a hub's projects: the queue itself, then two real graph services
// (worker threads, real SQLite files) sharing one, the second saying "queued" while the first indexes.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../../../server/config.ts';
import { openDatabase } from '../../../server/db/open.ts';
import { EventBus } from '../../../server/events/bus.ts';
import { PassQueue } from '../../../server/graph/pass-queue.ts';
import { createGraphService, type Freshness } from '../../../server/graph/service.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/graph/ts', import.meta.url));

test('the queue admits one owner at a time, first come first served, and a cancelled waiter leaves it', async () => {
  const queue = new PassQueue();
  const a = {};
  const b = {};
  const c = {};
  const order: string[] = [];
  const releaseA = await queue.acquire(a);
  assert.equal(queue.position(a), 0);
  const cancel = new AbortController();
  const waitingB = queue.acquire(b, cancel.signal);
  const waitingC = queue.acquire(c).then((release) => {
    order.push('c');
    return release;
  });
  assert.equal(queue.position(b), 1);
  assert.equal(queue.position(c), 2);
  assert.equal(queue.length, 3);
  cancel.abort(new Error('closed'));
  await assert.rejects(waitingB, /closed/);
  assert.equal(queue.position(c), 1, 'the cancelled waiter no longer holds a place');
  releaseA();
  releaseA(); // twice is harmless
  const releaseC = await waitingC;
  assert.deepEqual(order, ['c']);
  assert.equal(queue.position(c), 0);
  assert.equal(queue.position(a), undefined);
  releaseC();
  assert.equal(queue.length, 0);
});

test('two projects sharing a queue: the second full pass waits, says queued, then runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-pass-queue-'));
  const queue = new PassQueue();
  const make = (name: string) => {
    const repo = join(dir, name);
    cpSync(FIXTURE, repo, { recursive: true });
    const dbPath = join(dir, `${name}.db`);
    const db = openDatabase(dbPath);
    const config = loadConfig({ COS_REPO: repo, COS_STATE_DIR: join(dir, `${name}-state`) });
    const graph = createGraphService({
      config,
      db,
      dbPath,
      events: new EventBus(),
      logger: pino({ level: 'silent' }),
      passQueue: queue,
    });
    return { db, graph };
  };
  const one = make('one');
  const two = make('two');
  try {
    // Hold the queue, as another project's pass would, so both services must wait.
    const releaseOther = await queue.acquire({});
    one.graph.start();
    two.graph.start();
    const seen: Freshness[] = [one.graph.freshness(), two.graph.freshness()];
    assert.deepEqual(
      seen.map((f) => [f.queued, f.indexing]),
      [
        [1, false],
        [2, false],
      ],
    );
    // A second full request while waiting joins the waiting pass rather than queueing another.
    const joined = one.graph.reindex({ force: true });
    assert.equal(queue.length, 3);
    releaseOther();
    const [result] = await Promise.all([joined, one.graph.ready()]);
    assert.ok(result.filesChanged > 0);
    assert.equal(one.graph.freshness().queued, undefined);
    await two.graph.ready();
    assert.equal(two.graph.freshness().queued, undefined);
    assert.equal(two.graph.freshness().generation, 1);
    assert.equal(queue.length, 0, 'every turn was given back');
  } finally {
    await one.graph.close();
    await two.graph.close();
    one.db.close();
    two.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('closing a service while its pass waits rejects the wait and frees its place', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-pass-queue-'));
  const queue = new PassQueue();
  const dbPath = join(dir, 'hub.db');
  const db = openDatabase(dbPath);
  const config = loadConfig({ COS_REPO: dir, COS_STATE_DIR: join(dir, 'state') });
  const graph = createGraphService({
    config,
    db,
    dbPath,
    events: new EventBus(),
    logger: pino({ level: 'silent' }),
    passQueue: queue,
  });
  try {
    const releaseOther = await queue.acquire({});
    const pass = graph.reindex();
    assert.equal(graph.freshness().queued, 1);
    await graph.close();
    await assert.rejects(pass, /closed/);
    assert.equal(queue.length, 1);
    releaseOther();
    assert.equal(queue.length, 0);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
