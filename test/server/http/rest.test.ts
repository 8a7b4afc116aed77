import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { catalog } from '../../../server/tools/catalog.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import { testTools } from '../../support/tools.ts';

let t: TestHub;
before(async () => {
  t = await startTestHub({ tools: [...catalog, ...testTools], withoutServices: true });
});
after(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1:9188' } });
const post = (url: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url, payload: payload as object, headers: { host: '127.0.0.1:9188' } });

describe('REST routes from the registry', () => {
  test('a success is 200 { data, meta } with the layer and the computed meta keys', async () => {
    const res = await get('/api/test/echo?text=hi&times=3&loud=true&tags=a&tags=b');
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.data, { text: 'HIHIHI', tags: ['a', 'b'] });
    assert.equal(body.meta.layer, 'health');
    assert.equal(body.meta.truncated, false);
    assert.equal(typeof body.meta.tokens_estimated, 'number');
    assert.equal('ok' in body, false);
  });

  test('a single query value for an array argument becomes a one-item list', async () => {
    const res = await get('/api/test/echo?text=x&tags=only');
    assert.deepEqual(res.json().data.tags, ['only']);
  });

  test('path params join the body as arguments', async () => {
    const res = await post('/api/test/items/a', { note: 'n' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, { id: 'a', note: 'n' });
  });

  test('bad input is 400 validation naming the field', async () => {
    const res = await get('/api/test/echo?text=x&times=zero');
    assert.equal(res.statusCode, 400);
    const { error } = res.json();
    assert.equal(error.category, 'validation');
    assert.equal(error.retryable, false);
    assert.match(error.message, /times/);
  });

  test('a missing required argument is 400 validation', async () => {
    const res = await get('/api/test/echo');
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error.message, /text/);
  });

  test('an unknown argument is refused, not silently dropped', async () => {
    const res = await post('/api/test/items/a', { note: 'n', extra: 1 });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.category, 'validation');
  });

  test('an error body is the error envelope OpenAPI declares (ErrorEnvelope)', async () => {
    const { Value } = await import('@sinclair/typebox/value');
    const { ErrorEnvelopeSchema } = await import('../../../shared/envelope/index.ts');
    for (const res of [
      await post('/api/test/items/zzz', {}),
      await get('/api/nothing'),
      await get('/api/test/echo'),
    ]) {
      assert.equal(res.json().ok, false);
      assert.ok(Value.Check(ErrorEnvelopeSchema, res.json()), res.body);
    }
  });

  test('an unknown id is 404 not_found with the tool message', async () => {
    const res = await post('/api/test/items/zzz', {});
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json().error, {
      category: 'not_found',
      retryable: false,
      message: 'no item "zzz"; the only item is "a"',
    });
  });

  const mapped: [string, number, string, boolean][] = [
    ['busy', 503, 'transient', true],
    ['readonly', 403, 'permission', false],
    ['eacces', 403, 'permission', false],
    ['timeout', 503, 'transient', true],
    ['unavailable', 503, 'unavailable', true],
    ['crash', 500, 'internal', false],
  ];
  for (const [kind, status, category, retryable] of mapped) {
    test(`a ${kind} failure is ${status} ${category}`, async () => {
      const res = await post('/api/test/fail', { kind });
      assert.equal(res.statusCode, status);
      const { error } = res.json();
      assert.equal(error.category, category);
      assert.equal(error.retryable, retryable);
      if (status === 503) assert.equal(res.headers['retry-after'], '1');
      assert.doesNotMatch(
        error.message,
        /\/tmp|\/work|SELECT|at .*\.ts:\d+/,
        'no path, SQL or stack in the message',
      );
    });
  }

  test('an unexpected exception is logged with its stack, tool, pid, thread and error id', async () => {
    const res = await post('/api/test/fail', { kind: 'crash' });
    const id = /error id (E-[a-z0-9]+-[0-9a-f]+)/.exec(res.json().error.message)?.[1];
    assert.ok(id, 'the message quotes an error id');
    const lines = readFileSync(join(t.config.stateDir, '.mcp.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const entry = lines.find((l) => l.errorId === id);
    assert.ok(entry, 'the log has the error id');
    assert.equal(entry.tool, 'cos_test_fail');
    assert.equal(entry.pid, process.pid);
    assert.equal(entry.thread, 'main');
    assert.match(entry.err.stack, /boom/);
  });

  test('a SQLite failure logs the database files of the connection', async () => {
    const res = await post('/api/test/fail', { kind: 'busy' });
    const id = /error id (E-[a-z0-9]+-[0-9a-f]+)/.exec(res.json().error.message)?.[1];
    const lines = readFileSync(join(t.config.stateDir, '.mcp.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const entry = lines.find((l) => l.errorId === id);
    assert.ok(entry?.databases?.some((d: { file: string }) => d.file.endsWith('hub.db')));
  });

  test('the browser gets untrimmed answers (applyBudget false)', async () => {
    const res = await get('/api/test/big?count=2000');
    const body = res.json();
    assert.equal(body.data.results.length, 2000);
    assert.equal(body.meta.truncated, false);
    assert.ok(res.body.length > 300_000);
  });

  test('a disabled module answers 403 module_disabled naming the module and the command', async () => {
    t.hub.modules.set('memory', false);
    try {
      const res = await get('/api/test/memory-probe');
      assert.equal(res.statusCode, 403);
      const { error } = res.json();
      assert.equal(error.category, 'module_disabled');
      assert.match(error.message, /"memory"/);
      assert.match(error.message, /cos module enable memory/);
    } finally {
      t.hub.modules.set('memory', true);
    }
    assert.equal((await get('/api/test/memory-probe')).statusCode, 200);
  });
});

describe("Fastify's own failures answer in the error shape", () => {
  test('an unknown route is 404 not_found', async () => {
    const res = await get('/api/nothing/here');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.category, 'not_found');
  });

  test('malformed JSON is 400 validation', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/test/items/a',
      headers: { host: '127.0.0.1', 'content-type': 'application/json' },
      payload: '{"note":',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.category, 'validation');
  });

  test('a body over the limit is 413 with an error envelope', async () => {
    const res = await post('/api/test/items/a', { note: 'x'.repeat(t.config.bodyLimitBytes + 10) });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error.category, 'validation');
  });
});

describe('kernel tools', () => {
  test('GET /api/health reports version, schema, FTS5, tables and modules', async () => {
    const res = await get('/api/health');
    assert.equal(res.statusCode, 200);
    const { data } = res.json();
    assert.equal(data.status, 'ok');
    assert.match(data.version, /^\d+\.\d+\.\d+/);
    assert.ok(data.database.schema_version >= 1);
    assert.equal(data.database.fts5, true);
    assert.equal(typeof data.database.tables.hub_meta, 'number');
    assert.ok(data.modules.some((m: { id: string }) => m.id === 'kernel'));
  });

  test('PATCH /api/settings/modules/:id disables and enables a module and publishes module-changed', async () => {
    const seen: unknown[] = [];
    const off = t.hub.events.subscribe((e) => {
      if (e.type === 'module-changed') seen.push(e.type);
    });
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/modules/docs',
      payload: { enabled: false },
      headers: { host: 'localhost' },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, {
      module: { id: 'docs', enabled: false, description: res.json().data.module.description },
      changed: true,
    });
    const list = (await get('/api/settings/modules')).json().data.modules;
    assert.equal(list.find((m: { id: string }) => m.id === 'docs').enabled, false);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/modules/docs',
      payload: { enabled: true },
      headers: { host: 'localhost' },
    });
    off();
    assert.deepEqual(seen, ['module-changed', 'module-changed']);
  });

  test('the kernel cannot be disabled', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/modules/kernel',
      payload: { enabled: false },
      headers: { host: 'localhost' },
    });
    assert.equal(res.statusCode, 400);
  });

  test('an unknown module id is a validation error', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/modules/nope',
      payload: { enabled: false },
      headers: { host: 'localhost' },
    });
    assert.equal(res.statusCode, 400);
  });
});

describe('malformed URLs answer in the error shape', () => {
  test('an over-long path parameter is 414 validation', async () => {
    const res = await post(`/api/test/items/${'x'.repeat(5000)}`, {});
    assert.equal(res.statusCode, 414);
    assert.equal(res.json().error.category, 'validation');
  });

  test('a path that is not valid percent-encoding is 400 validation', async () => {
    const res = await post('/api/test/items/%E0%A4%A', {});
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.category, 'validation');
  });
});
