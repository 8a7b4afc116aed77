// The board tools through the real hub: runTool, the REST routes (app.inject) and MCP (the SDK Client over
// a real port). The board service is attached the way services.ts will attach it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { boardTools } from '../../../server/tools/board/index.ts';
import { runTool } from '../../../server/tools/run.ts';
import { budgetSize, TOKEN_BUDGET_CHARS } from '../../../shared/envelope/index.ts';
import { makeTaskFiles } from '../../fixtures/board/make-tasks.ts';
import type { TestHub } from '../../support/hub.ts';
import { startBoardHub } from './helpers.ts';

let t: TestHub;
let client: Client;
let close: () => Promise<void>;
before(async () => {
  ({ t, client, close } = await startBoardHub((dir) => makeTaskFiles(dir, 5000)));
});
after(() => close());

const host = { host: '127.0.0.1:9188' };
const inject = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: host, ...(payload ? { payload } : {}) });

type Env = {
  ok: boolean;
  data?: Record<string, unknown> & { meta: Record<string, unknown> };
  error?: { category: string; message: string };
};

async function mcp(name: string, args: Record<string, unknown>): Promise<{ env: Env; size: number }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0]?.text ?? '';
  return { env: result.structuredContent as Env, size: budgetSize(text) };
}

describe('board tools in the hub', () => {
  it('MCP: a 5,000-task board fits the 32 KB budget and meta.next_cursor walks every card', async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { env, size } = await mcp('cos_task_board', cursor ? { cursor, limit: 500 } : { limit: 500 });
      assert.equal(env.ok, true, JSON.stringify(env.error));
      assert.ok(size <= TOKEN_BUDGET_CHARS, `page ${pages}: ${size}`);
      const data = env.data!;
      assert.equal(data.meta.layer, 'tasks');
      if (pages === 0) assert.ok((data.meta.cards_held_back as number) > 0);
      for (const column of data.columns as { cards: { id: string }[] }[])
        for (const c of column.cards) seen.add(c.id);
      cursor = (data.meta.next_cursor as string | null) ?? null;
      pages++;
    } while (cursor !== null && pages < 500);
    assert.equal(seen.size, 5000);
  });

  it('REST: /api/board/list returns every card asked for, unbudgeted', async () => {
    const res = await inject('GET', '/api/board/list?limit=500&include_archive=true');
    assert.equal(res.statusCode, 200);
    const body = res.json();
    const cards = body.data.columns.reduce((n: number, c: { cards: unknown[] }) => n + c.cards.length, 0);
    assert.equal(cards, 6 * 500);
    assert.ok(res.body.length > TOKEN_BUDGET_CHARS);
    assert.equal(body.meta.truncated, false);
  });

  it('REST: create, show, edit, move, search and config, with 400 and 404 where they belong', async () => {
    const created = await inject('POST', '/api/board/tasks', { title: 'From the browser', ready: true });
    assert.equal(created.statusCode, 200, created.body);
    const id = created.json().data.task.id as string;
    assert.equal(id, 'TASK-5001');
    assert.equal((await inject('GET', `/api/board/tasks/${id}`)).json().data.title, 'From the browser');
    const edited = await inject('PATCH', `/api/board/tasks/${id}`, { expected_version: 1, priority: 'P0' });
    assert.equal(edited.json().data.task.version, 2);
    const stale = await inject('PATCH', `/api/board/tasks/${id}`, { expected_version: 1, priority: 'P1' });
    assert.equal(stale.statusCode, 400);
    assert.match(stale.json().error.message, /is at version 2, not 1/);
    const bad = await inject('POST', `/api/board/tasks/${id}/move`, { to: 'testing' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error.message, /allowed from icebox: in_progress, emergency, archive/);
    assert.equal((await inject('GET', '/api/board/tasks/TASK-999999')).statusCode, 404);
    const search = await inject('GET', '/api/board/search?query=browser&limit=5');
    assert.equal(search.json().data.results[0].id, id);
    const config = (await inject('GET', '/api/board/config')).json().data;
    assert.equal(config.columns.length, 7);
    assert.equal(config.wip_caps.in_progress, 3);
  });

  it('MCP: claim-next over the transport, and a stale write answers validation with the current version', async () => {
    const first = await mcp('cos_task_claim_next', { agent_session: 'agent-1' });
    assert.equal(first.env.ok, false, 'in_progress is over its cap on this board');
    assert.match(first.env.error?.message ?? '', /WIP cap of 3/);
    const show = await mcp('cos_task_show', { id: 'TASK-1' });
    assert.equal(show.env.ok, true);
    const stale = await mcp('cos_task_edit', { id: 'TASK-1', expected_version: 7, title: 'x' });
    assert.equal(stale.env.error?.category, 'validation');
    assert.match(stale.env.error?.message ?? '', /is at version 1, not 7/);
    const wrongArgs = await mcp('cos_task_board', { limit: 0 });
    assert.equal(wrongArgs.env.error?.category, 'validation');
  });

  it('OpenAPI: the board routes make a valid 3.1 document with one operation per tool', async () => {
    const doc = JSON.parse(JSON.stringify(t.app.swagger())) as {
      paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
    };
    await SwaggerParser.validate(structuredClone(doc) as never);
    const ops = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/board/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(
          ([m, op]) => `${m.toUpperCase()} ${path} ${op.operationId} ${op.tags.join(',')}`,
        ),
      );
    assert.equal(ops.length, boardTools.length);
    assert.ok(ops.includes('GET /api/board/list boardList board'));
    assert.ok(ops.includes('PATCH /api/board/tasks/{id} boardTaskEdit board'));
  });

  it('runTool: every read tool answers ok on the big board', async () => {
    const ctx = t.hub.context({ transport: 'internal' });
    for (const [name, input] of [
      ['cos_task_ready', {}],
      ['cos_task_history', { id: 'TASK-5001' }],
      ['cos_task_dependencies', { id: 'TASK-1' }],
      ['cos_task_dependents', { id: 'TASK-1' }],
      ['cos_task_wip_check', {}],
      ['cos_task_search', { query: 'parser index' }],
    ] as const) {
      const tool = boardTools.find((x) => x.name === name)!;
      const env = await runTool(tool, input, { applyBudget: true, ctx });
      assert.equal(env.ok, true, `${name}: ${JSON.stringify(env)}`);
      assert.ok(JSON.stringify(env).length <= TOKEN_BUDGET_CHARS);
    }
  });
});

describe('board tools under hostile input', () => {
  it('never answer internal, whatever the arguments (fast-check through runTool)', async () => {
    const fc = (await import('fast-check')).default;
    const ctx = t.hub.context({ transport: 'mcp', mcpSessionId: 'fuzz' });
    for (const tool of boardTools) {
      const keys = Object.keys(tool.input.properties);
      const value = fc.oneof(
        fc.anything(),
        fc.string(),
        fc.constantFrom(
          'TASK-1',
          'TASK-0',
          '-1',
          'icebox',
          'in_progress',
          'P0',
          '',
          'ready',
          'x'.repeat(300),
        ),
        fc.integer(),
        fc.array(fc.constantFrom('TASK-1', 'TASK-2', 'nope', '')),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom(...keys, 'extra'), value, { maxKeys: 6 }),
          async (input) => {
            const env = await runTool(tool, input, { applyBudget: true, ctx });
            if (!env.ok)
              assert.notEqual(
                env.error.category,
                'internal',
                `${tool.name} ${JSON.stringify(input)}: ${env.error.message}`,
              );
          },
        ),
        { numRuns: 60 },
      );
    }
  });
});
