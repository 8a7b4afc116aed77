// The live stream over a real port: resume with Last-Event-ID, resync, slow consumers, and churn.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { catalog } from '../../../server/tools/catalog.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import { openSse } from '../../support/sse.ts';
import { testTools } from '../../support/tools.ts';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

let t: TestHub;
let url: string;
before(async () => {
  // Thousands of connections a second from one address is the churn under test, not abuse: without
  // this the per-client rate limit answers 429 once a fast machine has run enough rounds.
  t = await startTestHub({
    tools: [...catalog, ...testTools],
    withoutServices: true,
    listen: true,
    env: { COS_RATE_LIMIT_RPS: '0' },
  });
  url = `${t.url}/api/stream/events`;
});
after(() => t.close());

const publishMany = (n: number, prefix: string) => {
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push(t.hub.events.publish('module-changed', { id: `${prefix}-${i}`, enabled: true }).id);
  return ids;
};

describe('live stream', () => {
  test('a client gets `connected`, then bus events with their ids', async () => {
    const c = await openSse(url);
    await c.waitFor((e) => e.event === 'connected');
    const [id] = publishMany(1, 'hello');
    const e = await c.waitFor((x) => x.event === 'module-changed');
    assert.equal(e.id, id);
    assert.deepEqual(e.data, { id: 'hello-0', enabled: true });
    c.close();
  });

  test('a tool call is streamed as tool-called', async () => {
    const c = await openSse(url);
    await c.waitFor((e) => e.event === 'connected');
    await t.app.inject({ method: 'GET', url: '/api/test/echo?text=live', headers: { host: '127.0.0.1' } });
    const e = await c.waitFor((x) => x.event === 'tool-called');
    assert.equal((e.data as { tool: string }).tool, 'cos_test_echo');
    c.close();
  });

  test('resuming with Last-Event-ID delivers every missed event exactly once, in order', async () => {
    const a = await openSse(url);
    await a.waitFor((e) => e.event === 'connected');
    const [seenLast] = publishMany(1, 'before');
    await a.waitFor((e) => e.id === seenLast);
    a.close();
    await a.closed;
    const missed = publishMany(25, 'missed');
    const b = await openSse(url, { 'last-event-id': String(seenLast) });
    await b.waitFor((e) => e.id === missed[missed.length - 1]);
    const live = publishMany(2, 'live');
    await b.waitFor((e) => e.id === live[1]);
    const got = b.events.filter((e) => e.id !== undefined).map((e) => e.id);
    assert.deepEqual(got, [...missed, ...live]);
    b.close();
  });

  test('a Last-Event-ID older than the buffer gets `resync`', async () => {
    const old = t.hub.events.lastId;
    publishMany(1100, 'flood');
    const c = await openSse(url, { 'last-event-id': String(old) });
    const e = await c.waitFor((x) => x.event === 'resync');
    assert.equal((e.data as { last_id: number }).last_id, t.hub.events.lastId);
    c.close();
  });

  test('a client that stops reading is dropped with a final event, and the hub keeps serving', async () => {
    const slow = await openSse(url, {}, { paused: true });
    const listenersBefore = t.hub.events.listenerCount;
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 100 && t.hub.events.listenerCount >= listenersBefore; i++) {
      t.hub.events.publish('log-warning', { message: big });
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(t.hub.events.listenerCount, listenersBefore - 1, 'the slow client was unsubscribed');
    slow.response.resume();
    await slow.closed;
    assert.equal(slow.events.at(-1)?.event, 'dropped');
    const health = await t.app.inject({ method: 'GET', url: '/api/health', headers: { host: '127.0.0.1' } });
    assert.equal(health.statusCode, 200);
  });
});

describe('churn', () => {
  const seconds = Number(process.env.COS_SOAK_SECONDS ?? 5);
  test(`200 clients connecting and disconnecting for ${seconds} s while tools run leave nothing behind`, {
    timeout: (seconds + 60) * 1000,
  }, async () => {
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 20));
      gc();
    };
    await settle();
    const baseListeners = t.hub.events.listenerCount;
    const baseHandles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;
    const baseHeap = process.memoryUsage().heapUsed;

    let calls = 0;
    let running = true;
    const caller = (async () => {
      while (running) {
        await t.app.inject({
          method: 'GET',
          url: '/api/test/echo?text=churn',
          headers: { host: '127.0.0.1' },
        });
        calls++;
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const end = Date.now() + seconds * 1000;
    let rounds = 0;
    // At least three rounds even when a loaded machine makes one round take the whole budget.
    while (Date.now() < end || rounds < 3) {
      const clients = await Promise.all(Array.from({ length: 200 }, () => openSse(url)));
      // Generous: 200 connections at once on a loaded 2-core machine can take a while to be served.
      await Promise.all(clients.map((c) => c.waitFor((e) => e.event === 'connected', 30_000)));
      for (const c of clients) c.close();
      await Promise.all(clients.map((c) => c.closed));
      rounds++;
    }
    running = false;
    await caller;
    await settle();
    await settle();

    assert.ok(calls > 10, `tool calls during churn ${calls}`);
    assert.equal(t.hub.events.listenerCount, baseListeners, 'every subscriber was released');
    const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;
    assert.ok(handles <= baseHandles + 2, `open handles ${handles} vs ${baseHandles} at start`);
    const heap = process.memoryUsage().heapUsed;
    assert.ok(
      heap < baseHeap * 1.5 + 16 * 1024 * 1024,
      `heap ${Math.round(heap / 1e6)} MB vs ${Math.round(baseHeap / 1e6)} MB at start`,
    );
  });
});
