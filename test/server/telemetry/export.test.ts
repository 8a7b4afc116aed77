// The OpenTelemetry export end to end: a real hub on a real port, called by the official MCP client and
// over REST, fed hook events through its ingest route and token usage on its bus, exporting through the
// SDK to a real OTLP/HTTP receiver (test/support/otlp.ts), once per protocol (http/json, http/protobuf).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadTelemetrySettings } from '../../../server/telemetry/settings.ts';
import { startTelemetry, type Telemetry } from '../../../server/telemetry/telemetry.ts';
import { fixture } from '../../support/hooks.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../support/otlp.ts';

const SESSION = '8e1c2f4a-6b1d-4c7e-9f3a-2d5b7c9e0a11';

for (const protocol of ['http/json', 'http/protobuf'] as const) {
  describe(`OTLP export over ${protocol}`, { timeout: 120_000 }, () => {
    let receiver: OtlpReceiver;
    let telemetry: Telemetry;
    let t: TestHub;
    let client: Client;

    before(async () => {
      receiver = await startOtlpReceiver();
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: 'cos-hub-under-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,team=platform%2Ftools',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=secret-key',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
        COS_RATE_LIMIT_RPS: '0',
      };
      telemetry = (await startTelemetry(loadTelemetrySettings(env)))!;
      assert.ok(telemetry, 'an endpoint turns the export on');
      t = await startTestHub({ listen: true, env, telemetry });
      mkdirSync(join(t.dir, 'docs', 'tasks'), { recursive: true });
      client = await connectClient(t.url);
    });
    after(async () => {
      await client?.close();
      await t?.close();
      await telemetry?.shutdown();
      await receiver?.close();
    });

    const rest = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${t.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const hook = (name: string, overrides: Record<string, unknown> = {}) =>
      rest('POST', '/api/hooks/events?client=claude-code', fixture('claude-code', name, t.dir, overrides));
    const spanNamed = (name: string): ReceivedSpan | undefined => receiver.spans.find((s) => s.name === name);

    test('a span per tool call, MCP and REST, with its outcome, error category, latency and project', async () => {
      const ok = await client.callTool({
        name: 'cos_task_create',
        arguments: { title: 'Export what matters' },
      });
      assert.equal(ok.isError, false);
      const bad = await client.callTool({ name: 'cos_task_show', arguments: { id: 'no-such-task' } });
      assert.equal(bad.isError, true);
      const viaRest = await rest('GET', '/api/board/list');
      assert.equal(viaRest.status, 200);
      await receiver.waitFor(
        () =>
          ['execute_tool cos_task_create', 'execute_tool cos_task_show', 'execute_tool cos_task_board'].every(
            (n) => spanNamed(n) !== undefined,
          ),
        15_000,
        'the three tool spans',
      );
      const create = spanNamed('execute_tool cos_task_create')!;
      assert.equal(create.attributes['gen_ai.tool.name'], 'cos_task_create');
      assert.equal(create.attributes['gen_ai.operation.name'], 'execute_tool');
      assert.equal(create.attributes['cos.transport'], 'mcp');
      assert.equal(create.attributes['mcp.method.name'], 'tools/call');
      assert.equal(create.attributes['cos.outcome'], 'ok');
      assert.equal(create.attributes['cos.project'], t.dir.split('/').pop());
      assert.equal(typeof create.attributes['mcp.session.id'], 'string');
      assert.equal(create.status.code, 0, 'unset: a call that answered ok');
      assert.equal(create.kind, 2, 'SERVER');
      const latencyMs = Number(create.endNs - create.startNs) / 1e6;
      assert.ok(latencyMs > 0 && latencyMs < 10_000, `latency ${latencyMs} ms`);
      assert.ok(
        Math.abs(latencyMs - Number(create.attributes['cos.duration_ms'])) < 1,
        'the span lasts as long as the call took',
      );
      // The span starts when the call did: within the test's own lifetime, in epoch nanoseconds.
      const startMs = Number(create.startNs / 1_000_000n);
      assert.ok(Math.abs(startMs - Date.now()) < 60_000, `start ${new Date(startMs).toISOString()}`);

      const show = spanNamed('execute_tool cos_task_show')!;
      assert.equal(show.status.code, 2, 'ERROR');
      assert.equal(
        show.attributes['error.type'],
        (bad.structuredContent as { error: { category: string } }).error.category,
      );
      assert.equal(show.attributes['cos.outcome'], show.attributes['error.type']);

      const list = spanNamed('execute_tool cos_task_board')!;
      assert.equal(list.attributes['cos.transport'], 'rest');
      assert.equal(list.attributes['mcp.method.name'], undefined);

      // The resource: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES (decoded), the hub's version.
      assert.equal(create.resource['service.name'], 'cos-hub-under-test');
      assert.equal(create.resource['deployment.environment.name'], 'test');
      assert.equal(create.resource.team, 'platform/tools');
      assert.equal(typeof create.resource['service.version'], 'string');
      // The protocol asked for, with the headers asked for.
      const traces = receiver.requests.filter((r) => r.path === '/v1/traces');
      assert.ok(traces.length > 0);
      for (const r of traces) {
        assert.match(
          r.contentType,
          protocol === 'http/json' ? /application\/json/ : /application\/x-protobuf/,
        );
        assert.equal(r.headers['x-collector-key'], 'secret-key');
      }
    });

    test('an agent session is a span, its hook events spans inside it, and its token usage a chat span with the GenAI counts', async () => {
      for (const name of ['session-start', 'pre-tool-use-bash', 'post-tool-use-failure-bash'])
        assert.equal((await hook(name)).status, 200, name);
      // The costs module publishes this after reading the transcript; the test publishes it as that module does.
      t.hub.events.publish('usage-recorded', {
        agent_session: SESSION,
        client: 'claude-code',
        model: 'claude-opus-5',
        task_id: null,
        tokens: { input: 1200, output: 340, cache_write: 500, cache_read: 8000 },
        cost_usd: 0.42,
        records: 3,
        at: Date.now(),
      });
      // A tool call naming the agent session belongs to it too.
      await client.callTool({ name: 'cos_task_board', arguments: { agent_session: SESSION } });
      assert.equal((await hook('session-end')).status, 200);

      await receiver.waitFor(
        () =>
          spanNamed('invoke_agent claude-code') !== undefined &&
          spanNamed('chat claude-opus-5') !== undefined,
        15_000,
        'the session and chat spans',
      );
      const session = spanNamed('invoke_agent claude-code')!;
      assert.equal(session.attributes['gen_ai.agent.id'], SESSION);
      assert.equal(session.attributes['gen_ai.provider.name'], 'anthropic');
      assert.equal(session.attributes['gen_ai.system'], 'anthropic');
      assert.equal(session.attributes['cos.session.end_reason'], 'session_end');
      assert.equal(session.parentSpanId, '', 'a session is a trace of its own');

      const children = receiver.spans.filter((s) => s.parentSpanId === session.spanId);
      const names = children.map((s) => s.name).sort();
      for (const name of [
        'chat claude-opus-5',
        'execute_tool cos_task_board',
        'hook PostToolUseFailure',
        'hook PreToolUse',
        'hook SessionEnd',
        'hook SessionStart',
      ])
        assert.ok(names.includes(name), `${name} is inside the session (got ${names.join(', ')})`);
      for (const c of children) assert.equal(c.traceId, session.traceId);

      const failure = children.find((s) => s.name === 'hook PostToolUseFailure')!;
      assert.equal(failure.status.code, 2);
      assert.equal(failure.attributes['gen_ai.tool.name'], 'Bash');
      assert.equal(failure.attributes['cos.hook.ok'], false);

      const chat = children.find((s) => s.name === 'chat claude-opus-5')!;
      assert.equal(chat.kind, 3, 'CLIENT');
      assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(chat.attributes['gen_ai.request.model'], 'claude-opus-5');
      assert.equal(chat.attributes['gen_ai.system'], 'anthropic');
      // Cached prompt tokens are part of input_tokens under the conventions, and named apart as well.
      assert.equal(chat.attributes['gen_ai.usage.input_tokens'], 1200 + 8000 + 500);
      assert.equal(chat.attributes['gen_ai.usage.output_tokens'], 340);
      assert.equal(chat.attributes['gen_ai.usage.cache_read.input_tokens'], 8000);
      assert.equal(chat.attributes['gen_ai.usage.cache_creation.input_tokens'], 500);
      assert.equal(chat.attributes['cos.usage.cost_usd'], 0.42);

      // What the hooks redacted stays redacted on the way out.
      const everything = JSON.stringify(receiver.spans, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
      assert.doesNotMatch(everything, /sk-ant-api03/);
    });

    test('a task in progress is a span from the move into progress to completion', async () => {
      const created = await rest('POST', '/api/board/tasks', { title: 'Trace the board' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const id = (created.body.data as { task: { id: string } }).task.id;
      const moved = await rest('POST', `/api/board/tasks/${id}/move`, { to: 'in_progress' });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      const done = await rest('POST', `/api/board/tasks/${id}/move`, {
        to: 'complete',
        bypass_gates: true,
        reason: 'test',
      });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      await receiver.waitFor(() => spanNamed(`task ${id}`) !== undefined, 15_000, 'the task span');
      const span = spanNamed(`task ${id}`)!;
      assert.equal(span.attributes['cos.task.id'], id);
      assert.equal(span.attributes['cos.task.outcome'], 'complete');
      assert.ok(span.events.some((e) => e.name === 'task moved'));
    });

    test('the numbers of /metrics, from the same snapshot', async () => {
      await receiver.waitFor(
        () =>
          receiver.metrics.some((m) => m.name === 'cos_tool_calls') &&
          receiver.metrics.some((m) => m.name === 'cos_tool_call_duration_seconds' && m.points.length > 0),
        15_000,
        'the metrics',
      );
      // Let a collection happen after the test's last call, then compare with /metrics.
      const t0 = Date.now();
      const text = await (await fetch(`${t.url}/metrics`)).text();
      assert.ok(Date.now() - t0 < 5_000, `/metrics answered in ${Date.now() - t0} ms`);
      const prom = (tool: string, transport: string, outcome: string) => {
        const m = text.match(
          new RegExp(
            `^cos_tool_calls_total\\{tool="${tool}",transport="${transport}",outcome="${outcome}"\\} (\\d+)$`,
            'm',
          ),
        );
        return m ? Number(m[1]) : 0;
      };
      const expected = prom('cos_task_create', 'mcp', 'ok');
      assert.ok(expected >= 1);
      const seen = receiver.metrics.length;
      await receiver.waitFor(() => receiver.metrics.length > seen + 1, 15_000, 'a later collection');
      const last = receiver.metrics.filter((m) => m.name === 'cos_tool_calls').at(-1)!;
      assert.equal(last.kind, 'sum');
      const point = last.points.find(
        (p) =>
          p.attributes.tool === 'cos_task_create' &&
          p.attributes.transport === 'mcp' &&
          p.attributes.outcome === 'ok',
      );
      assert.equal(point?.value, expected);
      assert.equal(point?.attributes['cos.project'], t.dir.split('/').pop());

      const histogram = receiver.metrics.filter((m) => m.name === 'cos_tool_call_duration_seconds').at(-1)!;
      assert.equal(histogram.kind, 'histogram');
      const h = histogram.points.find((p) => p.attributes.tool === 'cos_task_create')!;
      const promCount = Number(
        text.match(/^cos_tool_call_duration_seconds_count\{tool="cos_task_create"\} (\d+)$/m)?.[1],
      );
      assert.equal(h.count, promCount);
      assert.equal(h.bounds?.length, 13);
      assert.equal(h.bucketCounts?.length, 14);
      assert.equal(
        h.bucketCounts?.reduce((a, b) => a + b, 0),
        h.count,
        'the buckets hold every call',
      );
      assert.ok(receiver.metrics.some((m) => m.name === 'process_resident_memory_bytes'));
      assert.ok(receiver.metrics.some((m) => m.name === 'cos_mcp_sessions'));
    });

    test('cos_health shows the export: on, where (without credentials), what was exported', async () => {
      const health = await client.callTool({ name: 'cos_health', arguments: {} });
      const data = (
        health.structuredContent as { data: { telemetry: Record<string, unknown>; problems: string[] } }
      ).data;
      assert.equal(data.telemetry.enabled, true);
      assert.equal(data.telemetry.endpoint, `${receiver.url}/v1/traces`);
      assert.equal(data.telemetry.protocol, protocol);
      assert.ok((data.telemetry.exported as number) >= 5);
      assert.equal(data.telemetry.dropped, 0);
      assert.equal(data.telemetry.failed, 0);
      assert.equal(data.telemetry.last_error, null);
      assert.deepEqual(data.problems, []);
      assert.doesNotMatch(JSON.stringify(data), /secret-key/);
    });
  });
}
