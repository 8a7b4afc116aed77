// Tool profiles on the MCP URL: /mcp?tools=core|board|graph|all. The official SDK Client over a real port
// against the real app with the product's catalog.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { catalog } from '../../../server/tools/catalog.ts';
import { CORE_TOOLS, PROFILE_NAMES, PROFILES, profilesWith } from '../../../server/tools/profiles.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
before(async () => {
  t = await startTestHub({ withoutServices: true, listen: true });
});
after(() => t.close());

async function connect(query: string): Promise<Client> {
  const client = new Client({ name: 'cos-profiles-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp${query}`, t.url)));
  return client;
}

const mcpNames: string[] = catalog.filter((tool) => tool.mcp !== false).map((tool) => tool.name);

describe('tool profiles', () => {
  test('every tool a profile names exists, and every tool is in some profile besides all', () => {
    for (const name of CORE_TOOLS) assert.ok(mcpNames.includes(name), `${name} is in the catalog`);
    for (const tool of catalog.filter((x) => x.mcp !== false)) assert.ok(profilesWith(tool).includes('all'));
  });

  test('without a query a session lists every tool, as with ?tools=all', async () => {
    for (const query of ['', '?tools=all']) {
      const client = await connect(query);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), [...mcpNames].sort(), query);
      await client.close();
    }
  });

  for (const name of PROFILE_NAMES.filter((p) => p !== 'all')) {
    test(`?tools=${name} lists exactly the ${name} profile`, async () => {
      const client = await connect(`?tools=${name}`);
      const { tools } = await client.listTools();
      const expected = catalog.filter((x) => x.mcp !== false && PROFILES[name].has(x)).map((x) => x.name);
      assert.deepEqual(tools.map((x) => x.name).sort(), expected.sort());
      assert.ok(tools.length < mcpNames.length / 2, `${name} is a smaller surface (${tools.length})`);
      await client.close();
    });
  }

  test('a tool outside the profile answers not_found naming the profile that has it', async () => {
    const client = await connect('?tools=core');
    const res = await client.callTool({ name: 'cos_graph_export', arguments: {} });
    assert.equal(res.isError, true);
    const env = res.structuredContent as { error: { category: string; message: string } };
    assert.equal(env.error.category, 'not_found');
    assert.match(env.error.message, /"core"/);
    assert.match(env.error.message, /"graph"/);
    assert.match(env.error.message, /\/mcp\?tools=graph/);
    const inside = await client.callTool({ name: 'cos_health', arguments: {} });
    assert.equal(inside.isError, false);
    await client.close();
  });

  test('the profile stays the one the session started with', async () => {
    const client = await connect('?tools=graph');
    const first = (await client.listTools()).tools.length;
    assert.equal((await client.listTools()).tools.length, first);
    const res = await client.callTool({ name: 'cos_task_board', arguments: {} });
    assert.match((res.structuredContent as { error: { message: string } }).error.message, /"board"/);
    await client.close();
  });

  test('an unknown profile refuses to initialize and names the profiles there are', async () => {
    const res = await fetch(`${t.url}/mcp?tools=everything`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { message: string } };
    assert.match(body.error.message, /tools=everything/);
    assert.match(body.error.message, /core, board, graph, all/);
  });

  test('a disabled module leaves a profile too, and comes back with it', async () => {
    const client = await connect('?tools=core');
    t.hub.modules.set('graph', false);
    try {
      const { tools } = await client.listTools();
      assert.ok(!tools.some((x) => x.name.startsWith('cos_graph_')));
      assert.ok(tools.some((x) => x.name === 'cos_task_board'));
    } finally {
      t.hub.modules.set('graph', true);
    }
    const { tools } = await client.listTools();
    assert.ok(tools.some((x) => x.name === 'cos_graph_impact'));
    await client.close();
  });
});
