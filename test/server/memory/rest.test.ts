// The memory, docs and supervise tools served by the real Fastify app: routes from their http bindings,
// query strings converted by their schemas, envelopes unwrapped to { data, meta } or { error }, and a
// valid OpenAPI 3.1 document. Services are wired here until server/services.ts creates them. The memory
// routes run once per store (SQLite, a team's PostgreSQL): the same answers from either.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import pino from 'pino';
import { createDocsService } from '../../../server/docs/service.ts';
import { createMemoryService } from '../../../server/memory/service.ts';
import { createSuperviseService } from '../../../server/supervise/service.ts';
import { docsTools } from '../../../server/tools/docs/index.ts';
import { memoryTools } from '../../../server/tools/memory/index.ts';
import { superviseTools } from '../../../server/tools/supervise/index.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import { MEMORY_STORES } from './stores.ts';

let t: TestHub;
const headers = { host: '127.0.0.1:9188' };
const get = (url: string) => t.app.inject({ method: 'GET', url, headers });
const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

before(async () => {
  t = await startTestHub({
    tools: [...memoryTools, ...docsTools, ...superviseTools],
    withoutServices: true,
    logger: pino({ level: 'silent' }),
  });
  const { db, config } = t.hub;
  mkdirSync(join(config.repo, 'docs'), { recursive: true });
  writeFileSync(
    join(config.repo, 'docs', 'guide.md'),
    '---\nstatus: accepted\n---\n# Guide\n\n## Pools\n\nSize the pool.\n',
  );
  const docs = createDocsService({ db, repo: config.repo, stateDir: config.stateDir, watch: false });
  Object.assign(t.hub.services, {
    memory: createMemoryService({ db }),
    docs,
    supervise: createSuperviseService({ agentDir: config.agentDir, stateDir: config.stateDir }),
  });
  await docs.start();
});
after(async () => {
  await t.hub.services.docs.close();
  await t.close();
});

describe('REST faces of memory, docs and supervise', () => {
  for (const kind of MEMORY_STORES) {
    test(`memory CRUD under /api/memory and search at /api/search/memory (${kind.name})`, async () => {
      const backing = await kind.open();
      t.hub.services.memory = createMemoryService({ db: t.hub.db, team: backing.team });
      try {
        const created = await send('POST', '/api/memory/observations', {
          title: 'Pool sizing',
          narrative: 'Size the pool to the cores.',
          type: 'decision',
          concepts: ['pool'],
        });
        assert.equal(created.statusCode, 200, created.body);
        const id = created.json().data.observation.id as number;
        assert.equal(created.json().meta.layer, 'memory');
        // The machine is a team's to say; a hub alone leaves it out.
        assert.equal(
          created.json().data.observation.machine,
          kind.name === 'postgres' ? 'machine-a' : undefined,
        );

        const found = await get('/api/search/memory?query=pool&types=decision&limit=5');
        assert.equal(found.statusCode, 200, found.body);
        assert.equal(found.json().data.results[0].id, id);
        assert.equal(found.json().data.meta?.match_mode, undefined); // REST: meta is lifted beside data
        assert.equal(found.json().meta.match_mode, 'words');

        const patched = await send('PATCH', `/api/memory/observations/${id}`, { confidence: 0.2 });
        assert.equal(patched.json().data.confidence, 0.2);
        assert.equal((await get(`/api/memory/observations/${id}`)).json().data.access_count, 1);
        assert.equal((await get('/api/memory/timeline?days=1')).json().data.entries.length, 1);

        const bad = await get('/api/search/memory?query=pool&limit=50');
        assert.equal(bad.statusCode, 400);
        assert.equal(bad.json().error.category, 'validation');
        const syntax = await get(`/api/search/memory?query=${encodeURIComponent('*()')}`);
        assert.equal(syntax.statusCode, 400);

        const gone = await send('DELETE', `/api/memory/observations/${id}?reason=obsolete`);
        assert.equal(gone.statusCode, 200, gone.body);
        assert.equal((await get(`/api/memory/observations/${id}`)).statusCode, 404);
        assert.equal((await get('/api/memory/forgotten')).json().data.entries[0].reason, 'obsolete');
      } finally {
        await backing.close();
      }
    });
  }

  test('docs search, header and headers-by', async () => {
    const res = await get('/api/search/docs?query=pool&path_prefix=docs/');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data.results[0].heading_path, ['Guide', 'Pools']);
    const header = await get('/api/docs/header?path=docs/guide.md');
    assert.equal(header.json().data.title, 'Guide');
    assert.equal((await get('/api/docs/header?path=nope.md')).statusCode, 404);
    const by = await get('/api/docs/headers?key=status&value=accepted');
    assert.equal(by.json().data.results[0].path, 'docs/guide.md');
  });

  test('supervise: record through the session path, read the bundle, list roles and outputs', async () => {
    const rec = await send('POST', '/api/supervise/sessions/run-1/outputs', {
      role: 'tester',
      output: { summary: 'green', passed: 3, failed: 0 },
      status: 'ok',
      latency_ms: 12,
    });
    assert.equal(rec.statusCode, 200, rec.body);
    assert.equal(rec.json().meta.layer, 'audit');
    const bundle = await get('/api/supervise/sessions/run-1/bundle');
    assert.equal(bundle.json().data.slots.tester.length, 1);
    const roles = await get('/api/roles');
    assert.ok(roles.json().data.roles.some((r: { id: string }) => r.id === 'reviewer'));
    const outs = await get('/api/roles/tester/outputs');
    assert.equal(outs.json().data.entries[0].session_id, 'run-1');
    const invalid = await send('POST', '/api/supervise/sessions/run-1/outputs', {
      role: 'tester',
      output: { summary: 'x', passed: 'three', failed: 0 },
      status: 'ok',
      latency_ms: 1,
    });
    assert.equal(invalid.statusCode, 400);
    assert.match(invalid.json().error.message, /output\.passed/);
    const traversal = await get('/api/supervise/sessions/..%2F..%2Fetc/bundle');
    assert.equal(traversal.statusCode, 400);
  });

  test('the OpenAPI document with these routes is valid 3.1', async () => {
    const res = await get('/openapi.json');
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    await SwaggerParser.validate(structuredClone(doc));
    for (const path of [
      '/api/search/memory',
      '/api/search/docs',
      '/api/roles',
      '/api/roles/{role}/outputs',
    ]) {
      assert.ok(doc.paths[path]?.get, path);
    }
  });
});
