// One truth between the CLI and a running hub: with `cos serve` running on a state directory, the other
// commands find it (running-hub.json) and ask it, or read without writing. A real hub process, the
// official MCP SDK Client listening for tools/list_changed, and the `cos` command as child processes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cos, makeRepo, waitFor } from '../../support/cli.ts';
import { type HubProcess, startHubProcess } from '../../support/hub-process.ts';

async function connect(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'cli-truth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, sessionId: transport.sessionId as string };
}

async function activeSessions(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/sessions/active`, { headers });
  assert.equal(res.status, 200);
  return (
    (await res.json()) as {
      data: { sessions: { id: string; lifecycle: string; end_reason: string | null }[] };
    }
  ).data.sessions;
}

describe('a hub running on the state directory', { timeout: 300_000 }, () => {
  let repo: string;
  let hub: HubProcess;
  let mcp: Awaited<ReturnType<typeof connect>>;
  const changes: number[] = [];

  before(async () => {
    repo = makeRepo();
    hub = await startHubProcess(repo);
    mcp = await connect(hub.url);
    mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes.push(performance.now());
    });
    // A session that has done something: it is in the database, where a second hub would end it.
    await mcp.client.callTool({ name: 'cos_health', arguments: {} });
    await waitFor('the graph index', async () => {
      const r = await fetch(`${hub.url}/api/graph/search?query=b`);
      return r.ok && (await r.text()).includes('src/b.ts');
    });
  });

  after(async () => {
    await mcp?.client.close();
    await hub?.stop();
  });

  test('cos serve records where it listens in running-hub.json', () => {
    const record = JSON.parse(readFileSync(join(repo, '.cos/running-hub.json'), 'utf8'));
    assert.equal(record.url, hub.url);
    assert.equal(record.repo, repo);
    assert.equal(record.pid, hub.child.pid);
  });

  test('cos module disable changes the running hub within a second: tools/list_changed, tools gone', async () => {
    const before = changes.length;
    const off = await cos(['module', 'disable', 'graph', '--repo', repo]);
    assert.equal(off.status, 0, off.stderr);
    assert.match(off.stdout, new RegExp(`graph disabled in the hub at ${hub.url}/`));
    await waitFor('tools/list_changed', () => changes.length > before, 1000);
    assert.ok((changes.at(-1) ?? 0) - off.exitedAt < 1000, 'the notification came within a second');
    const tools = await mcp.client.listTools();
    assert.equal(tools.tools.filter((t) => t.name.startsWith('cos_graph_')).length, 0);
    // The hub wrote the setting: a restart keeps it.
    assert.deepEqual(JSON.parse(readFileSync(join(repo, '.cos/subsystems-state.json'), 'utf8')).disabled, [
      'graph',
    ]);
    const list = await cos(['module', 'list', '--repo', repo]);
    assert.match(list.stdout, /off\s+graph/);

    const again = changes.length;
    const on = await cos(['module', 'enable', 'graph', '--repo', repo]);
    assert.equal(on.status, 0, on.stderr);
    await waitFor('tools/list_changed', () => changes.length > again, 1000);
    const back = await mcp.client.listTools();
    assert.ok(back.tools.some((t) => t.name === 'cos_graph_search'));
  });

  test('cos index asks the running hub to index and leaves its sessions alone', async () => {
    writeFileSync(join(repo, 'src/c.ts'), "export const c = 'added while the hub runs';\n");
    const run = await cos(['index', '--repo', repo]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`indexed .* \\(by the hub at ${hub.url}/\\): \\d+ files seen`));
    const search = await fetch(`${hub.url}/api/graph/search?query=c`);
    assert.match(await search.text(), /src\/c\.ts/);
    await assertSessionUntouched();
  });

  test('cos doctor reads through the running hub and changes nothing', async () => {
    const run = await cos(['doctor', '--repo', repo]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`ok\\s+hub\\s+running at ${hub.url}/`));
    assert.match(run.stdout, /ok\s+task files\s+1 indexed, every file parses/);
    assert.match(run.stdout, /ok\s+code graph\s+\d+ files, \d+ nodes, \d+ edges; healthy/);
    await assertSessionUntouched();
  });

  test('a second cos serve on the same state directory says in one line which hub is there', async () => {
    const run = await cos(['serve', '--port', '0', '--repo', repo]);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, '');
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(
      lines[0]!,
      new RegExp(`a hub already serves ${repo} at ${hub.url}/ \\(pid ${hub.child.pid}`),
    );
    await assertSessionUntouched();
    // The record still names the running hub.
    assert.equal(JSON.parse(readFileSync(join(repo, '.cos/running-hub.json'), 'utf8')).pid, hub.child.pid);
  });

  test("a cos serve on the hub's port, for another state directory, names that hub and its repository", async () => {
    const port = new URL(hub.url).port;
    const other = makeRepo();
    const run = await cos(['serve', '--port', port, '--repo', other]);
    assert.equal(run.status, 1);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(
      lines[0]!,
      new RegExp(
        `port ${port} on 127\\.0\\.0\\.1 is taken by another cos hub \\(${hub.url}/, repository ${repo}\\)`,
      ),
    );
    assert.ok(!existsSync(join(other, '.cos/hub.db')), 'the refused hub opened no database');
    await assertSessionUntouched();
  });

  async function assertSessionUntouched(): Promise<void> {
    const sessions = await activeSessions(hub.url);
    const mine = sessions.filter((s) => s.id === mcp.sessionId);
    assert.equal(mine.length, 1, `the session is listed once: ${JSON.stringify(mine)}`);
    assert.notEqual(mine[0]?.lifecycle, 'ended');
    assert.equal(mine[0]?.end_reason, null);
    // The MCP session still works.
    const res = await mcp.client.callTool({ name: 'cos_health', arguments: {} });
    assert.notEqual(res.isError, true);
  }
});
