// The collector away, hanging or refusing: tool calls are answered exactly as without the export and no
// slower than its timeout would make them, what cannot be exported is counted (dropped beyond the bounded
// queue, failed when an export fails) and cos_health says so, without the endpoint's credentials; once
// the collector is back, spans flow again and the problem clears.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadTelemetrySettings } from '../../../server/telemetry/settings.ts';
import { startTelemetry, type Telemetry } from '../../../server/telemetry/telemetry.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../../support/otlp.ts';

/** A port nothing listens on (bound for a moment, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface HealthTelemetry {
  enabled: boolean;
  endpoint: string | null;
  protocol: string | null;
  exported: number;
  dropped: number;
  failed: number;
  last_error: string | null;
}

async function health(
  client: Client,
): Promise<{ status: string; telemetry: HealthTelemetry; problems: string[] }> {
  const r = await client.callTool({ name: 'cos_health', arguments: {} });
  return (r.structuredContent as { data: { status: string; telemetry: HealthTelemetry; problems: string[] } })
    .data;
}

/** The calls a test makes, as the agent reads their answers (the volatile parts of meta left out). */
async function answers(client: Client): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const [name, args] of [
    ['cos_task_board', {}],
    ['cos_task_show', { id: '999' }],
    ['cos_task_board', { status: 'not-a-status' }],
  ] as const) {
    const r = await client.callTool({ name, arguments: args });
    out.push({ isError: r.isError, content: r.structuredContent });
  }
  return out;
}

async function hubWith(
  env: Record<string, string>,
): Promise<{ t: TestHub; client: Client; telemetry?: Telemetry }> {
  const telemetry = await startTelemetry(loadTelemetrySettings(env));
  const t = await startTestHub({ listen: true, env: { COS_RATE_LIMIT_RPS: '0', ...env }, telemetry });
  mkdirSync(join(t.dir, 'docs', 'tasks'), { recursive: true });
  const client = await connectClient(t.url);
  return { t, client, ...(telemetry ? { telemetry } : {}) };
}

const quick = {
  OTEL_BSP_SCHEDULE_DELAY: '20',
  OTEL_BSP_MAX_QUEUE_SIZE: '4',
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2',
  OTEL_METRICS_EXPORTER: 'none',
};

describe('with the collector down', { timeout: 120_000 }, () => {
  let plain: Awaited<ReturnType<typeof hubWith>>;
  let down: Awaited<ReturnType<typeof hubWith>>;

  before(async () => {
    const port = await closedPort();
    plain = await hubWith({});
    down = await hubWith({
      ...quick,
      // Credentials in the URL and a token in its query: cos_health must show neither.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://collector-user:collector-pass@127.0.0.1:${port}/v1/traces?token=abc123`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TIMEOUT: '500',
    });
    assert.ok(down.telemetry);
    assert.equal(plain.telemetry, undefined, 'no OTEL variables: no export at all');
  });
  after(async () => {
    for (const h of [plain, down]) {
      await h?.client.close();
      await h?.t.close();
      await h?.telemetry?.shutdown();
    }
  });

  test('tool calls answer exactly as on a hub without the export', async () => {
    assert.deepEqual(await answers(down.client), await answers(plain.client));
  });

  test('spans beyond the queue are dropped and failed exports counted; cos_health says so, without credentials', async () => {
    // A burst: 40 answers within the batch delay, ten times the queue (a refused connection fails fast, so
    // one call at a time would never fill it).
    const burst = await Promise.all(
      Array.from({ length: 40 }, () => down.client.callTool({ name: 'cos_task_board', arguments: {} })),
    );
    for (const r of burst) assert.equal(r.isError, false);
    // Every span is accounted for, as failed (a refused connection fails fast) or dropped (the queue
    // full): the three calls of the test before, the 40, and the cos_health calls here but the last.
    const deadline = Date.now() + 15_000;
    let healthCalls = 0;
    let h = await health(down.client);
    while (h.telemetry.failed + h.telemetry.dropped < 43 + healthCalls && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      healthCalls++;
      h = await health(down.client);
    }
    assert.equal(h.telemetry.enabled, true);
    assert.ok(h.telemetry.failed > 0, `failed ${h.telemetry.failed}`);
    assert.ok(h.telemetry.failed + h.telemetry.dropped >= 43 + healthCalls, JSON.stringify(h.telemetry));
    assert.equal(h.telemetry.exported, 0);
    assert.match(h.telemetry.last_error ?? '', /ECONNREFUSED|connect|fail/i);
    assert.equal(h.telemetry.endpoint, `http://127.0.0.1:${new URL(h.telemetry.endpoint!).port}/v1/traces`);
    assert.equal(h.telemetry.protocol, 'http/json');
    const text = JSON.stringify(h);
    for (const secret of ['collector-user', 'collector-pass', 'abc123'])
      assert.ok(!text.includes(secret), `cos_health shows no ${secret}`);
    assert.equal(h.status, 'degraded');
    assert.ok(h.problems.some((p) => /OpenTelemetry export .* is failing/.test(p)));
  });
});

describe('with the collector hanging, then refusing, then back', { timeout: 120_000 }, () => {
  let receiver: OtlpReceiver;
  let hub: Awaited<ReturnType<typeof hubWith>>;

  before(async () => {
    receiver = await startOtlpReceiver();
    receiver.mode = 'hang';
    hub = await hubWith({
      ...quick,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
    });
  });
  after(async () => {
    await hub?.client.close();
    await hub?.t.close();
    await hub?.telemetry?.shutdown();
    await receiver?.close();
  });

  test('a collector that never answers holds no call: each is answered long before the export times out', async () => {
    const slowest = { ms: 0 };
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const r = await hub.client.callTool({ name: 'cos_task_board', arguments: {} });
      slowest.ms = Math.max(slowest.ms, performance.now() - t0);
      assert.equal(r.isError, false);
    }
    // The export timeout is 2 s; a call that waited for it would take that long.
    assert.ok(slowest.ms < 1_000, `slowest call ${slowest.ms.toFixed(1)} ms`);
    await receiver.waitFor(() => receiver.requests.length > 0, 5_000, 'an export attempt');
    const h = await health(hub.client);
    assert.ok(
      h.telemetry.dropped > 0,
      `with exports hanging the queue fills: dropped ${h.telemetry.dropped}`,
    );
  });

  test('a refusing collector counts failures; once it accepts again, spans arrive and the problem clears', async () => {
    receiver.mode = 'refuse';
    const deadline = Date.now() + 20_000;
    let h = await health(hub.client);
    while (h.telemetry.failed === 0 && Date.now() < deadline) {
      await hub.client.callTool({ name: 'cos_task_board', arguments: {} });
      await new Promise((r) => setTimeout(r, 100));
      h = await health(hub.client);
    }
    assert.ok(h.telemetry.failed > 0, `failed ${h.telemetry.failed}`);
    assert.ok(h.telemetry.last_error);

    receiver.mode = 'accept';
    await hub.client.callTool({ name: 'cos_task_show', arguments: { id: '1' } });
    await receiver.waitFor(
      () => receiver.spans.some((s) => s.name === 'execute_tool cos_task_show'),
      20_000,
      'the span made after the collector came back',
    );
    await receiver.waitFor(() => true);
    const later = await health(hub.client);
    assert.ok(later.telemetry.exported > 0);
    assert.ok(!later.problems.some((p) => /OpenTelemetry/.test(p)), later.problems.join('; '));
  });
});
