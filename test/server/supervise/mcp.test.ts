// The memory, docs and supervise tools through the official MCP SDK Client on a real port: the client
// validates each structuredContent against the tool's outputSchema, so a schema the SDK cannot compile or a
// payload that does not fit fails here.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pino from 'pino';
import { createDocsService } from '../../../server/docs/service.ts';
import { createMemoryService } from '../../../server/memory/service.ts';
import { createSuperviseService } from '../../../server/supervise/service.ts';
import { docsTools } from '../../../server/tools/docs/index.ts';
import { memoryTools } from '../../../server/tools/memory/index.ts';
import { superviseTools } from '../../../server/tools/supervise/index.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
let client: Client;
before(async () => {
  t = await startTestHub({
    tools: [...memoryTools, ...docsTools, ...superviseTools],
    withoutServices: true,
    logger: pino({ level: 'silent' }),
    listen: true,
  });
  const { db, config } = t.hub;
  mkdirSync(join(config.repo, 'docs'), { recursive: true });
  writeFileSync(
    join(config.repo, 'docs', 'a.md'),
    '---\nstatus: draft\n---\n# A\n\n## Pools\n\n数据库连接池 pool sizing\n',
  );
  const docs = createDocsService({ db, repo: config.repo, stateDir: config.stateDir, watch: false });
  Object.assign(t.hub.services, {
    memory: createMemoryService({ db }),
    docs,
    supervise: createSuperviseService({ agentDir: config.agentDir, stateDir: config.stateDir }),
  });
  await docs.start();
  client = await connectClient(t.url);
});
after(async () => {
  await client.close();
  await t.hub.services.docs.close();
  await t.close();
});

type Env = { ok: boolean; data?: Record<string, unknown>; error?: { category: string; message: string } };
async function call(name: string, args: Record<string, unknown>): Promise<Env> {
  const result = await client.callTool({ name, arguments: args });
  const env = result.structuredContent as Env;
  assert.equal(result.isError, !env.ok);
  return env;
}

test('tools/list carries every memory, docs and supervise tool with an output schema', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name).sort();
  assert.deepEqual(names, [...memoryTools, ...docsTools, ...superviseTools].map((x) => x.name).sort());
  assert.ok(tools.every((x) => x.outputSchema));
});

test('each tool answers in a shape its output schema accepts, ok or error', async () => {
  const rec = await call('cos_observation_record', {
    title: '连接池 sizing',
    type: 'fact',
    session_id: 's1',
  });
  assert.equal(rec.ok, true);
  const id = (rec.data!.observation as { id: number }).id;
  const calls: [string, Record<string, unknown>, boolean][] = [
    ['cos_search', { query: '连接池' }, true],
    ['cos_search', { query: '()*' }, false],
    ['cos_timeline', {}, true],
    ['cos_details', { id }, true],
    ['cos_observation_update', { id, confidence: 0.9 }, true],
    ['cos_forget_log', {}, true],
    ['cos_doc_search', { query: '连接池' }, true],
    ['cos_doc_header', { path: 'docs/a.md' }, true],
    ['cos_doc_header', { path: 'docs/missing.md' }, false],
    ['cos_doc_headers_by', { key: 'status', value: 'draft' }, true],
    [
      'cos_supervise_record_output',
      {
        session_id: 'run',
        role: 'tester',
        output: { summary: 's', passed: 1, failed: 0 },
        status: 'ok',
        latency_ms: 3,
      },
      true,
    ],
    [
      'cos_supervise_record_output',
      { session_id: '../x', role: 'tester', output: {}, status: 'ok', latency_ms: 3 },
      false,
    ],
    ['cos_supervise_bundle', { session_id: 'run' }, true],
    ['cos_supervise_roles', {}, true],
    ['cos_supervise_role_outputs', { role: 'tester' }, true],
    ['cos_forget', { id }, true],
  ];
  for (const [name, args, ok] of calls) {
    const env = await call(name, args);
    assert.equal(env.ok, ok, `${name} ${JSON.stringify(args)}: ${JSON.stringify(env.error)}`);
  }
});
