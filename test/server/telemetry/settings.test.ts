// The OTEL_* variables as the hub reads them, and what happens without them: nothing exported, and the
// SDK never even loaded (checked in a child process whose module resolver refuses @opentelemetry/*).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../../server/config.ts';
import { loadTelemetrySettings, parseKeyValues, shownEndpoint } from '../../../server/telemetry/settings.ts';
import { idleStatus } from '../../../server/telemetry/telemetry.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;

describe('the OTEL_* variables', () => {
  test('without an endpoint nothing is exported, whatever else is set', () => {
    for (const env of [
      {},
      { OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      { OTEL_RESOURCE_ATTRIBUTES: 'a=b' },
    ]) {
      const s = loadTelemetrySettings(env);
      assert.equal(s.enabled, false);
      assert.equal(s.error, null);
      assert.equal(s.traces, undefined);
      assert.equal(s.metrics, undefined);
    }
    assert.deepEqual(idleStatus(loadTelemetrySettings({})), {
      enabled: false,
      endpoint: null,
      protocol: null,
      exported: 0,
      dropped: 0,
      failed: 0,
      last_error: null,
    });
  });

  test('the shared endpoint gets each signal path; a signal endpoint is used as it is', () => {
    const s = loadTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' });
    assert.equal(s.enabled, true);
    assert.equal(s.traces?.url, 'http://collector:4318/v1/traces');
    assert.equal(s.metrics?.url, 'http://collector:4318/v1/metrics');
    assert.equal(s.traces?.protocol, 'http/protobuf', 'the specification default');
    assert.equal(s.serviceName, 'cos-hub');
    const own = loadTelemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/custom/path',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
    });
    assert.equal(own.traces?.url, 'https://traces.example/custom/path');
    assert.equal(own.metrics?.url, 'http://collector:4318/v1/metrics');
    assert.equal(own.metrics?.protocol, 'http/json');
    assert.equal(own.traces?.protocol, 'http/protobuf');
    // Only traces: no metrics endpoint is made up.
    const tracesOnly = loadTelemetrySettings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces',
    });
    assert.equal(tracesOnly.metrics, undefined);
    assert.equal(tracesOnly.enabled, true);
  });

  test('OTEL_SDK_DISABLED and OTEL_*_EXPORTER=none turn it off', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    assert.equal(loadTelemetrySettings({ ...base, OTEL_SDK_DISABLED: 'true' }).enabled, false);
    assert.equal(loadTelemetrySettings({ ...base, OTEL_SDK_DISABLED: 'TRUE' }).enabled, false);
    assert.equal(loadTelemetrySettings({ ...base, OTEL_SDK_DISABLED: 'false' }).enabled, true);
    const noTraces = loadTelemetrySettings({ ...base, OTEL_TRACES_EXPORTER: 'none' });
    assert.equal(noTraces.traces, undefined);
    assert.equal(noTraces.enabled, true);
    assert.equal(
      loadTelemetrySettings({ ...base, OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' }).enabled,
      false,
    );
  });

  test('an unsupported protocol or a bad endpoint turns it off with a reason cos_health shows, never a failed start', () => {
    const grpc = loadTelemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    assert.equal(grpc.enabled, false);
    assert.match(grpc.error ?? '', /"grpc" is not supported.*http\/protobuf or http\/json/);
    assert.equal(idleStatus(grpc).last_error, grpc.error);
    assert.equal(idleStatus(grpc).endpoint, null);
    for (const endpoint of ['not a url', 'ftp://collector/x']) {
      const s = loadTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      assert.equal(s.enabled, false, endpoint);
      assert.ok(s.error, endpoint);
      assert.ok(!s.error.includes('collector'), 'the URL (which may hold credentials) is not echoed');
    }
    // The rest of the configuration loads as ever.
    assert.equal(
      loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'x' }).port,
      9188,
    );
  });

  test('headers, resource attributes and the service name are decoded as the specification writes them', () => {
    assert.deepEqual(parseKeyValues('api-key=a%3Db,  x = y ,=nokey,novalue,bad=%E0%A4%A'), {
      'api-key': 'a=b',
      x: 'y',
    });
    const s = loadTelemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20t0ken,x-a=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-a=2',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,host.name=box',
    });
    assert.deepEqual(s.traces?.headers, { authorization: 'Bearer t0ken', 'x-a': '2' });
    assert.deepEqual(s.metrics?.headers, { authorization: 'Bearer t0ken', 'x-a': '1' });
    assert.equal(s.serviceName, 'from-attrs');
    assert.equal(
      loadTelemetrySettings({ OTEL_SERVICE_NAME: 'named', OTEL_RESOURCE_ATTRIBUTES: 'service.name=x' })
        .serviceName,
      'named',
    );
    assert.equal(s.resourceAttributes['host.name'], 'box');
  });

  test('the queue, timeouts and intervals take positive integers and keep the defaults otherwise', () => {
    const d = loadTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' });
    assert.deepEqual(d.batch, {
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduledDelayMs: 5000,
      exportTimeoutMs: 30000,
    });
    assert.equal(d.traces?.timeoutMs, 10_000);
    assert.equal(d.metricIntervalMs, 60_000);
    const s = loadTelemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '500',
      OTEL_BSP_SCHEDULE_DELAY: '-5',
      OTEL_EXPORTER_OTLP_TIMEOUT: 'soon',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '250',
    });
    assert.equal(s.batch.maxQueueSize, 100);
    assert.equal(s.batch.maxExportBatchSize, 100, 'a batch is never larger than the queue');
    assert.equal(s.batch.scheduledDelayMs, 5000);
    assert.equal(s.traces?.timeoutMs, 250);
    assert.equal(s.metrics?.timeoutMs, 10_000);
  });

  test('the endpoint is shown without user name, password or query', () => {
    assert.equal(
      shownEndpoint('https://user:p%40ss@collector.example:4318/v1/traces?api_key=k#x'),
      'https://collector.example:4318/v1/traces',
    );
    assert.equal(shownEndpoint('nope'), '(not a URL)');
  });
});

describe('without OTEL variables', () => {
  test('the hub, its app and `cos serve` load no OpenTelemetry module; with an endpoint the SDK is imported', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cos-otel-lazy-'));
    try {
      const refuse = join(dir, 'refuse.mjs');
      // A resolver that fails any import of @opentelemetry/*: loading one, statically or not, throws.
      writeFileSync(
        refuse,
        `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(
  "export async function resolve(s, c, next) { if (s.includes('@opentelemetry/')) throw new Error('resolved ' + s); return next(s, c); }"));
`,
      );
      const script = `
        const { loadConfig } = await import(${JSON.stringify(`${ROOT}server/config.ts`)});
        await import(${JSON.stringify(`${ROOT}server/app.ts`)});
        await import(${JSON.stringify(`${ROOT}server/hub.ts`)});
        await import(${JSON.stringify(`${ROOT}server/cli/serve.ts`)});
        const { startTelemetry } = await import(${JSON.stringify(`${ROOT}server/telemetry/telemetry.ts`)});
        const off = await startTelemetry(loadConfig({}).telemetry);
        let on = 'not tried';
        try { await startTelemetry(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }).telemetry); on = 'loaded without the resolver noticing'; }
        catch (err) { on = err.message; }
        process.stdout.write(JSON.stringify({ off: off === undefined, on }));
      `;
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', '--import', refuse, '--input-type=module', '-e', script],
        { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
      );
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { off: boolean; on: string };
      assert.equal(out.off, true, 'no endpoint: no telemetry');
      assert.match(out.on, /resolved @opentelemetry\//, 'an endpoint: the SDK is imported then, not before');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
