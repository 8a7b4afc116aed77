// What cos_log_query (and the timeline beside it) answers of a logged error: its id, the message and the
// error's type and message, never its stack, an absolute path of this machine or SQL; the whole record
// stays in .mcp.log. On the previous main the answer carried the stack, absolute paths included.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
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

interface Entry {
  message: string;
  error_id: string | null;
  level: string;
  scope: string | null;
}

/** Nothing a caller may not see: no stack frame, no path of this machine, no SQL statement. */
function carriesNoInternals(text: string): void {
  assert.ok(!text.includes(t.dir), `the repository's absolute path: ${text}`);
  assert.doesNotMatch(text, /\/(tmp|etc|work|root|home|usr|var)\//, 'an absolute path');
  assert.doesNotMatch(text, /\bat .*:\d+:\d+/, 'a stack frame');
  assert.doesNotMatch(text, /"stack"/, 'a stack field');
  assert.doesNotMatch(text, /\b(SELECT \*|UPDATE tasks SET|INSERT INTO)\b/, 'SQL');
}

const settle = () => new Promise((r) => setImmediate(r));

describe('cos_log_query answers what a caller may see of a logged error', () => {
  test('a tool that failed unexpectedly: the error id and message, no stack, path or SQL', async () => {
    // cos_test_fail throws Error(`boom at ${repo}/secret.ts: SELECT * FROM hidden`); its stack is
    // full of absolute paths.
    const result = await client.callTool({ name: 'cos_test_fail', arguments: { kind: 'crash' } });
    const errorId = /error id (\S+)/.exec(
      (result.structuredContent as { error: { message: string } }).error.message,
    )?.[1];
    assert.ok(errorId);
    await settle();
    const res = await client.callTool({ name: 'cos_log_query', arguments: { error_id: errorId } });
    const data = (res.structuredContent as { data: { entries: Entry[] } }).data;
    assert.equal(data.entries.length, 1);
    const [entry] = data.entries;
    assert.equal(entry!.error_id, errorId);
    assert.equal(entry!.level, 'error');
    assert.equal(entry!.scope, 'tool:cos_test_fail');
    // The message says what failed and why, with the path relative to the repository.
    assert.equal(entry!.message, 'tool cos_test_fail failed (Error: boom at secret.ts: (SQL left out))');
    carriesNoInternals(JSON.stringify(res));

    // Over REST, as the SPA reads it, the same.
    const rest = await t.app.inject({
      method: 'GET',
      url: `/api/observability/logs?error_id=${errorId}`,
      headers: host,
    });
    assert.equal(rest.statusCode, 200);
    assert.equal(rest.json().data.entries[0].message, entry!.message);
    carriesNoInternals(rest.body);

    // The whole record, stack included, is in .mcp.log under the same id.
    const log = readFileSync(join(t.config.stateDir, '.mcp.log'), 'utf8');
    const line = log.split('\n').find((l) => l.includes(errorId));
    assert.ok(line, 'the error is in .mcp.log');
    assert.match(line, /"stack":"Error: boom at .*secret\.ts[^"]*\\n\s+at /);
  });

  test('any line logged with an error: paths inside, outside and in the state directory', async () => {
    const err = new Error(
      `cannot read /etc/shadow, ${t.dir}/docs/a.md nor ${t.config.stateDir}/agents/x.json; UPDATE tasks SET status = 'done' WHERE id = 1`,
    );
    t.hub.logger.error({ err, errorId: 'E-probe-1', scope: 'probe' }, 'the probe failed');
    t.hub.logger.warn(
      { scope: 'probe' },
      `a warning naming file://${t.dir}/src/x.ts:12:5 and /api/board/list`,
    );
    await settle();
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/observability/logs?scope=probe',
      headers: host,
    });
    assert.equal(res.statusCode, 200);
    const entries = res.json().data.entries as Entry[];
    assert.deepEqual(
      entries.map((e) => e.message),
      [
        'a warning naming src/x.ts:12:5 and /api/board/list',
        'the probe failed (Error: cannot read …/shadow, docs/a.md nor $COS_STATE_DIR/agents/x.json; (SQL left out))',
      ],
    );
    assert.equal(entries[1]!.error_id, 'E-probe-1');
    carriesNoInternals(res.body);
    // Filtering by text reads the message it answers with.
    const byText = await t.app.inject({
      method: 'GET',
      url: '/api/observability/logs?text=docs%2Fa.md',
      headers: host,
    });
    assert.equal(byText.json().data.entries.length, 1);
  });

  test('rows an older hub stored, with a stack and paths, come out without them', async () => {
    t.hub.db
      .prepare(
        "INSERT INTO log_events (at, level, scope, message, error_id, session, stack) VALUES (?, 'error', 'legacy', ?, 'E-legacy', NULL, ?)",
      )
      .run(
        Date.now(),
        `open '${t.dir}/x.json' failed\n    at read (${t.dir}/server/x.ts:1:2)`,
        `Error: old\n    at f (${t.dir}/server/x.ts:1:2)`,
      );
    const res = await client.callTool({ name: 'cos_log_query', arguments: { scope: 'legacy' } });
    const [entry] = (res.structuredContent as { data: { entries: Entry[] } }).data.entries;
    assert.equal(entry!.message, "open 'x.json' failed");
    assert.equal(entry!.error_id, 'E-legacy');
    carriesNoInternals(JSON.stringify(res));
    // The timeline shows log lines too: the same text.
    const timeline = await t.app.inject({
      method: 'GET',
      url: '/api/observability/timeline?limit=200',
      headers: host,
    });
    assert.equal(timeline.statusCode, 200);
    assert.match(timeline.body, /open 'x\.json' failed/);
    carriesNoInternals(timeline.body);
  });
});
