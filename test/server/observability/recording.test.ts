import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Database from 'better-sqlite3';
import { Origins } from '../../../server/observability/call-batch.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';
import { testTools } from '../../support/tools.ts';

let t: TestHub;
let client: Client;
const host = { host: '127.0.0.1' };
before(async () => {
  t = await startTestHub({ tools: [...catalog, ...testTools], withoutServices: true, listen: true });
  client = await connectClient(t.url);
});
after(async () => {
  await client.close();
  await t.close();
});

const metricsOf = async (tool: string) => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/observability/metrics?tool=${tool}`,
    headers: host,
  });
  assert.equal(res.statusCode, 200);
  return res.json().data.rows[0];
};

describe('every tool call is recorded', () => {
  test('MCP and REST calls appear in cos_metrics with their error categories', async () => {
    await client.callTool({ name: 'cos_test_item', arguments: { id: 'a' } });
    await client.callTool({ name: 'cos_test_item', arguments: { id: 'nope' } });
    await client.callTool({ name: 'cos_test_item', arguments: { id: 5 } });
    await t.app.inject({ method: 'POST', url: '/api/test/items/zz', payload: {}, headers: host });
    const row = await metricsOf('cos_test_item');
    assert.equal(row.calls, 4);
    assert.equal(row.errors, 3);
    assert.deepEqual(row.errors_by_category, { not_found: 2, validation: 1 });
    assert.equal(row.error_rate, 0.75);
    assert.ok(row.mean_response_bytes > 50);
  });

  test('latencies are measured: a 40 ms tool has p50 ≥ 40 ms', async () => {
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'cos_test_sleep', arguments: { ms: 40 } });
    await client.callTool({ name: 'cos_test_sleep', arguments: { ms: 0 } });
    const row = await metricsOf('cos_test_sleep');
    assert.equal(row.calls, 4);
    // Timers may fire a fraction of a millisecond early against performance.now().
    assert.ok(row.p50_ms >= 39, `p50 ${row.p50_ms}`);
    assert.ok(row.p99_ms >= row.p50_ms);
    assert.ok(row.max_ms < 2_000);
  });

  test('a trimmed MCP answer counts towards the truncation rate', async () => {
    await client.callTool({ name: 'cos_test_big', arguments: { count: 2000 } });
    await client.callTool({ name: 'cos_test_big', arguments: { count: 1 } });
    const row = await metricsOf('cos_test_big');
    assert.equal(row.truncation_rate, 0.5);
  });

  test('the row names transport, session, client and agent session', async () => {
    await client.callTool({ name: 'cos_test_sleep', arguments: { ms: 1, agent_session: 'agent-7' } });
    t.hub.calls.flush();
    const row = t.hub.db
      .prepare("SELECT * FROM tool_calls WHERE tool = 'cos_test_sleep' AND agent_session = 'agent-7'")
      .get() as Record<string, unknown>;
    assert.equal(row.transport, 'mcp');
    assert.equal(row.client_name, 'cos-hub-test');
    assert.equal(row.mcp_session, (client.transport as unknown as { sessionId: string }).sessionId);
    assert.equal(row.ok, 1);
  });

  test('with the observability module off nothing is written, and its tools say so', async () => {
    t.hub.calls.flush();
    const before = t.hub.db.prepare('SELECT count(*) FROM tool_calls').pluck().get() as number;
    t.hub.modules.set('observability', false);
    try {
      await client.callTool({ name: 'cos_test_echo', arguments: { text: 'x' } });
      t.hub.calls.flush();
      assert.equal(t.hub.db.prepare('SELECT count(*) FROM tool_calls').pluck().get(), before);
      const res = await t.app.inject({ method: 'GET', url: '/api/observability/metrics', headers: host });
      assert.equal(res.json().error.category, 'module_disabled');
    } finally {
      t.hub.modules.set('observability', true);
    }
  });

  test('/metrics exposes counters and latency histograms in Prometheus text format', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: host });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/plain/);
    assert.match(
      res.body,
      /cos_tool_calls_total\{tool="cos_test_item",transport="mcp",outcome="not_found"\} 1/,
    );
    assert.match(res.body, /cos_tool_errors_total\{tool="cos_test_item",category="validation"\} 1/);
    assert.match(res.body, /cos_tool_call_duration_seconds_bucket\{tool="cos_test_sleep",le="\+Inf"\} \d+/);
    assert.match(res.body, /cos_mcp_sessions\{lifecycle="active"\} 1/);
    const heapUsed = Number(/^nodejs_heap_size_used_bytes (\d+)$/m.exec(res.body)?.[1]);
    const rss = Number(/^process_resident_memory_bytes (\d+)$/m.exec(res.body)?.[1]);
    assert.ok(heapUsed > 1_000_000 && rss > heapUsed, `heap used ${heapUsed} within RSS ${rss}`);
    const active = Number(/^cos_event_loop_active_seconds_total (\S+)$/m.exec(res.body)?.[1]);
    assert.ok(active > 0 && active < process.uptime(), `event loop active ${active} s`);
  });
});

describe('log events at WARN and above', () => {
  test('an internal error is queryable by its error id, with its message (its stack stays in .mcp.log)', async () => {
    const result = await client.callTool({ name: 'cos_test_fail', arguments: { kind: 'crash' } });
    const message = (result.structuredContent as { error: { message: string } }).error.message;
    const errorId = /error id (\S+)/.exec(message)?.[1];
    assert.ok(errorId);
    await new Promise((r) => setImmediate(r));
    const res = await client.callTool({ name: 'cos_log_query', arguments: { error_id: errorId } });
    const data = (
      res.structuredContent as { data: { entries: { level: string; message: string; scope: string }[] } }
    ).data;
    assert.equal(data.entries.length, 1);
    assert.equal(data.entries[0]!.level, 'error');
    assert.equal(data.entries[0]!.scope, 'tool:cos_test_fail');
    assert.match(data.entries[0]!.message, /boom/);
    assert.equal('stack' in data.entries[0]!, false);
  });

  test('log queries page with a cursor and filter by text', async () => {
    for (let i = 0; i < 5; i++) t.hub.logger.warn({ scope: 'paging' }, `paging warning ${i}`);
    await new Promise((r) => setImmediate(r));
    const first = (
      await t.app.inject({
        method: 'GET',
        url: '/api/observability/logs?scope=paging&limit=3',
        headers: host,
      })
    ).json();
    assert.equal(first.data.entries.length, 3);
    assert.equal(first.data.entries[0].message, 'paging warning 4');
    const second = (
      await t.app.inject({
        method: 'GET',
        url: `/api/observability/logs?scope=paging&limit=3&cursor=${first.data.next_cursor}`,
        headers: host,
      })
    ).json();
    assert.deepEqual(
      second.data.entries.map((e: { message: string }) => e.message),
      ['paging warning 1', 'paging warning 0'],
    );
    assert.equal(second.data.next_cursor, null);
    const text = (
      await t.app.inject({ method: 'GET', url: '/api/observability/logs?text=WARNING%203', headers: host })
    ).json();
    assert.equal(text.data.entries.length, 1);
  });

  test('a bad `since` is a validation error', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/observability/logs?since=yesterday',
      headers: host,
    });
    assert.equal(res.statusCode, 400);
  });
});

describe('timeline', () => {
  test('merges tool calls and log events newest first, and pages without repeats', async () => {
    t.hub.calls.flush();
    const expected = [
      ...(t.hub.db.prepare('SELECT id FROM tool_calls').pluck().all() as number[]).map(
        (id) => `tool_call:${id}`,
      ),
      ...(t.hub.db.prepare('SELECT id FROM log_events').pluck().all() as number[]).map((id) => `log:${id}`),
    ];
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    let previousAt = Number.POSITIVE_INFINITY;
    do {
      const url: string = `/api/observability/timeline?limit=7${cursor ? `&cursor=${cursor}` : ''}`;
      const body = (await t.app.inject({ method: 'GET', url, headers: host })).json();
      for (const e of body.data.entries as { kind: string; id: number; at: number }[]) {
        const key = `${e.kind}:${e.id}`;
        assert.ok(!seen.has(key), `${key} repeated`);
        seen.add(key);
        assert.ok(e.at <= previousAt, 'newest first');
        previousAt = e.at;
      }
      cursor = body.data.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    // Every entry that existed when paging began was seen (the paging calls themselves come later).
    assert.deepEqual(
      expected.filter((k) => !seen.has(k)),
      [],
    );
    assert.ok([...seen].some((k) => k.startsWith('log:')));
  });
});

describe('retention', () => {
  test('rows older than the window or beyond the row cap are deleted', async () => {
    const db = t.hub.db;
    t.hub.calls.flush();
    const old = Date.now() - 8 * 24 * 3600_000;
    db.prepare(
      "INSERT INTO tool_calls (at, tool, module, transport, duration_ms, ok, response_bytes, truncated) VALUES (?, 'cos_old', 'kernel', 'rest', 1, 1, 1, 0)",
    ).run(old);
    assert.ok(t.hub.calls.applyRetention() >= 1);
    assert.equal(db.prepare("SELECT count(*) FROM tool_calls WHERE tool = 'cos_old'").pluck().get(), 0);
  });
});

describe('recording through a locked database', () => {
  test('calls made while another process holds the write lock are written once it lets go', async () => {
    const locked = await startTestHub({
      tools: [...catalog, ...testTools],
      withoutServices: true,
      env: { COS_DB_BUSY_TIMEOUT_MS: '20' },
    });
    const other = new Database(locked.hub.dbPath);
    try {
      const count = () => locked.hub.db.prepare('SELECT count(*) FROM tool_calls').pluck().get() as number;
      locked.hub.calls.flush();
      const before = count();
      other.exec('BEGIN IMMEDIATE');
      for (let i = 0; i < 3; i++)
        await locked.app.inject({ method: 'GET', url: '/api/test/echo?text=locked', headers: host });
      // The writer cannot commit. Once it has said so, a query does not wait for those rows at all.
      locked.hub.calls.flush();
      assert.equal(count(), before);
      const t0 = performance.now();
      locked.hub.calls.flush();
      assert.ok(performance.now() - t0 < 100, `a query waited ${performance.now() - t0} ms`);
      other.exec('COMMIT');
      // The writer retries on its own; the rows arrive without another call.
      for (let i = 0; i < 100 && count() < before + 3; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(count(), before + 3);
      assert.equal(locked.hub.calls.dropped, 0);
      const warning = locked.hub.db
        .prepare("SELECT message FROM log_events WHERE scope = 'observability' ORDER BY id DESC LIMIT 1")
        .pluck()
        .get();
      assert.match(String(warning), /could not be recorded yet/);
    } finally {
      other.close();
      await locked.close();
    }
  });
});

describe('closing the hub', () => {
  test('calls recorded just before a close are written before the database closes', async () => {
    const closing = await startTestHub({ tools: [...catalog, ...testTools], withoutServices: true });
    const dbPath = closing.hub.dbPath;
    for (let i = 0; i < 7; i++)
      await closing.app.inject({ method: 'GET', url: '/api/test/echo?text=bye', headers: host });
    // No flush: the batch is still in memory (FLUSH_MS) when the hub closes.
    await closing.app.close();
    await closing.hub.close();
    const db = new Database(dbPath, { readonly: true });
    try {
      const rows = db.prepare("SELECT count(*) FROM tool_calls WHERE tool = 'cos_test_echo'").pluck().get();
      assert.equal(rows, 7);
    } finally {
      db.close();
      rmSync(closing.dir, { recursive: true, force: true });
    }
  });
});

describe('the encoded batches (call-batch.ts)', () => {
  test('an origin that retention removed while its session still calls is written again', async () => {
    const h = await startTestHub({ tools: [...catalog, ...testTools], withoutServices: true });
    try {
      const tool = testTools.find((x) => x.name === 'cos_test_echo')!;
      const caller = {
        transport: 'mcp' as const,
        mcpSessionId: 'long-lived',
        clientName: 'c',
        clientVersion: '9',
      };
      const ok = { ok: true as const, data: { meta: {} } };
      h.hub.calls.record(tool, caller, {}, ok, 10, 1, 1);
      h.hub.calls.flush();
      // Every row is past retention, so is the origin (its latest call is older than every row left).
      h.hub.db.prepare('DELETE FROM tool_call_rows').run();
      h.hub.calls.applyRetention();
      assert.equal(h.hub.db.prepare('SELECT count(*) FROM tool_call_origins').pluck().get(), 0);
      h.hub.calls.record(tool, caller, {}, ok, 20, 1, 1);
      h.hub.calls.flush();
      assert.deepEqual(
        h.hub.db.prepare('SELECT at, tool, mcp_session, client_version FROM tool_calls').all(),
        [{ at: 20, tool: 'cos_test_echo', mcp_session: 'long-lived', client_version: '9' }],
      );
    } finally {
      await h.close();
    }
  });

  test('every field of a row arrives as recorded, across a reset of the origin table', async () => {
    const h = await startTestHub({ tools: [...catalog, ...testTools], withoutServices: true });
    try {
      const tool = testTools.find((x) => x.name === 'cos_test_echo')!;
      const recorded = (i: number) => ({
        caller: {
          transport: 'mcp' as const,
          mcpSessionId: `session-${i}`,
          clientName: `client-${i % 3}`,
          clientVersion: `1.${i % 5}`,
        },
        agent: i % 4 === 0 ? `agent-${i}` : undefined,
        category: i % 7 === 0 ? ('not_found' as const) : undefined,
      });
      // More distinct (tool, caller) pairs than Origins.MAX, so the table is forgotten once mid-way (and
      // mid-batch: the first caller's three calls put the batch boundaries off the reset), and the first
      // caller calls again after that.
      const n = Origins.MAX + 50;
      const order = [0, 0, ...Array.from({ length: n }, (_, i) => i), 0];
      const callers = new Map<number, ReturnType<typeof recorded>['caller']>();
      for (const [k, i] of order.entries()) {
        const r = recorded(i);
        const caller = callers.get(i) ?? r.caller;
        callers.set(i, caller);
        const envelope = r.category
          ? { ok: false as const, error: { category: r.category, retryable: false, message: 'x' } }
          : { ok: true as const, data: { meta: { truncated: i % 2 === 0 } } };
        h.hub.calls.record(
          tool,
          caller,
          r.agent ? { agent_session: r.agent } : {},
          envelope,
          1_000 + k,
          i / 8,
          i,
        );
      }
      // 20,000 rows: on a loaded 2-core machine the writer thread needs longer than a query's 2 s bound
      // to commit them, and this test is about what arrives, not how fast.
      h.hub.calls.flush(60_000);
      const rows = h.hub.db
        .prepare(
          "SELECT * FROM tool_calls WHERE tool = 'cos_test_echo' AND at >= 1000 AND at < 1000000 ORDER BY at",
        )
        .all() as Record<string, unknown>[];
      assert.equal(rows.length, order.length);
      for (const [k, i] of order.entries()) {
        const r = recorded(i);
        const row = rows[k]!;
        assert.deepEqual(
          {
            at: row.at,
            module: row.module,
            transport: row.transport,
            mcp_session: row.mcp_session,
            client_name: row.client_name,
            client_version: row.client_version,
            agent_session: row.agent_session,
            duration_ms: row.duration_ms,
            ok: row.ok,
            error_category: row.error_category,
            response_bytes: row.response_bytes,
            truncated: row.truncated,
          },
          {
            at: 1_000 + k,
            module: 'kernel',
            transport: 'mcp',
            mcp_session: r.caller.mcpSessionId,
            client_name: r.caller.clientName,
            client_version: r.caller.clientVersion,
            agent_session: r.agent ?? null,
            duration_ms: Math.round((i / 8) * 1000) / 1000,
            ok: r.category ? 0 : 1,
            error_category: r.category ?? null,
            response_bytes: i,
            truncated: !r.category && i % 2 === 0 ? 1 : 0,
          },
          `row ${k} (call ${i})`,
        );
      }
    } finally {
      await h.close();
    }
  });
});
