// Idle projects release their caches and keep their watchers. One hub, three real git repositories
// (alpha, the default, and the registered beta and gamma), an idle limit of 2.4 s: every project left
// alone releases (its indexer thread, its writer threads, the caches beside its database; with every
// project released the process holds no extraction helper either), a registered project never written
// to never started a writer thread, a file saved while released is still indexed, and the next call
// answers as before. The hub's own page polling (X-Cos-Background) neither counts as use nor shows up
// as a call.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makeRepo, type ProjectsHub, startProjectsHub, waitFor } from './support.ts';

interface Env {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { category: string; message: string };
}
interface ProjectInfo {
  slug: string;
  last_used_at: string;
  idle: boolean;
  released_at: string | null;
  released: string[];
}

const IDLE_MINUTES = 0.04; // 2.4 s; the sweep looks every 600 ms
const root = realpathSync(mkdtempSync(join(tmpdir(), 'cos-projects-idle-')));
const alpha = makeRepo(root, 'alpha', 2);
const beta = makeRepo(root, 'beta', 1);
const gamma = makeRepo(root, 'gamma', 1);
let hub: ProjectsHub;
const clients: Client[] = [];

async function connect(prefix: string): Promise<Client> {
  const client = new Client({ name: 'idle-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${prefix}/mcp`, hub.url)));
  clients.push(client);
  return client;
}

async function mcp(client: Client, name: string, args: Record<string, unknown>): Promise<Env> {
  return (await client.callTool({ name, arguments: args })).structuredContent as Env;
}

/** GET /api/projects the way the hub's page asks it: in the background. */
async function listProjects(): Promise<ProjectInfo[]> {
  const res = await fetch(`${hub.url}/api/projects`, { headers: { 'x-cos-background': '1' } });
  assert.equal(res.status, 200);
  return ((await res.json()) as { data: { projects: ProjectInfo[] } }).data.projects;
}

const project = async (slug: string) => (await listProjects()).find((p) => p.slug === slug)!;
const betaProject = () => hub.projects.get('beta')!;

/** Rows tool_calls has for a tool in a project's database. */
function calls(slug: string, tool: string): { transport: string; mcp_session: string | null }[] {
  const h = hub.projects.get(slug)!.hub;
  h.calls.flush();
  return h.db
    .prepare('SELECT transport, mcp_session FROM tool_calls WHERE tool = ? ORDER BY id')
    .all(tool) as { transport: string; mcp_session: string | null }[];
}

before(async () => {
  hub = await startProjectsHub({
    root,
    defaultRepo: alpha.repo,
    registered: { beta: beta.repo, gamma: gamma.repo },
    env: { COS_PROJECT_IDLE_MINUTES: String(IDLE_MINUTES) },
  });
  for (const slug of ['alpha', 'beta', 'gamma']) {
    const p = await waitFor(`${slug} to open`, () => hub.projects.get(slug));
    await p.hub.services.graph?.ready();
  }
});

after(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await hub?.close();
  rmSync(root, { recursive: true, force: true });
});

test('a project nobody uses releases; a file saved meanwhile is indexed; its next call answers as before', async () => {
  const client = await connect('/p/beta');
  // In use, with every thread it can let go of running: a pass (the indexer), a task written (the
  // board's file writer), calls recorded (the call writer, which writes this session's origin once).
  const reindexed = await mcp(client, 'cos_graph_reindex', {});
  assert.equal(reindexed.ok, true, JSON.stringify(reindexed.error));
  const moved = await mcp(client, 'cos_task_move', { id: 'TASK-1', to: 'in_progress', expected_version: 1 });
  assert.equal(moved.ok, true, JSON.stringify(moved.error));
  const before = await mcp(client, 'cos_graph_context', { node: 'src/beta.ts::betaOnly' });
  // Read at once (no timer can run in between): the call that just ended is use.
  assert.equal(hub.projects.idle.state(betaProject()).releasedAt, null, 'just used: not released');
  assert.equal(before.ok, true, JSON.stringify(before.error));
  const sessionCalls = calls('beta', 'cos_graph_context').length;
  const origins = () =>
    hub.projects
      .get('beta')!
      .hub.db.prepare("SELECT count(*) FROM tool_call_origins WHERE tool = 'cos_graph_context'")
      .pluck()
      .get() as number;
  const originsBefore = origins();

  // Left alone past the limit, both projects release (the default one like any other): every thread
  // that ran goes (in one sweep or over a few, while one was still busy).
  const released = await waitFor(
    'beta to release its three threads',
    async () => {
      const p = await project('beta');
      return p.released.length === 3 ? p : undefined;
    },
    30_000,
  );
  assert.equal(released.idle, true);
  assert.notEqual(released.released_at, null);
  assert.deepEqual(released.released.sort(), ['board', 'call writer', 'graph']);
  // The default project started its writer threads with the hub; gamma, registered and never used,
  // never started any: it had only its indexer to let go.
  const alphaReleased = await waitFor(
    'alpha to release its three threads',
    async () => {
      const p = await project('alpha');
      return p.released.length === 3 ? p : undefined;
    },
    30_000,
  );
  assert.deepEqual(alphaReleased.released.sort(), ['board', 'call writer', 'graph']);
  const gammaReleased = await waitFor(
    'gamma to release',
    async () => {
      const p = await project('gamma');
      return p.released_at !== null ? p : undefined;
    },
    30_000,
  );
  assert.deepEqual(gammaReleased.released, ['graph']);
  // No indexer left in the process: its extraction helpers (and their grammars) are gone too.
  await waitFor('the helpers to stop', () => (hub.helpers.running === 0 ? true : undefined), 30_000);
  assert.equal(hub.helpers.leased, 0);

  // Saved while released: the watcher still sees it, and it is indexed without anybody asking.
  writeFileSync(
    join(beta.repo, 'src/late.ts'),
    "import { betaOnly } from './beta';\n\nexport function lateBeta(): number {\n  return betaOnly(41);\n}\n",
  );
  const betaDb = hub.projects.get('beta')!.hub.db;
  await waitFor(
    'src/late.ts to be indexed',
    () =>
      betaDb.prepare('SELECT 1 FROM graph_nodes WHERE uid = ?').get('code:function:src/late.ts::lateBeta')
        ? true
        : undefined,
    30_000,
  );
  const stillIdle = await project('beta');
  assert.notEqual(stillIdle.released_at, null, 'a watcher pass is not use: still released');
  // The sweep lets the indexer that pass started go again.
  await waitFor(
    'the indexer to be let go again',
    () => (hub.helpers.leased === 0 ? true : undefined),
    30_000,
  );

  // The next call brings back what it needs, transparently, and sees the file saved meanwhile.
  const late = await mcp(client, 'cos_graph_context', { node: 'src/late.ts::lateBeta' });
  assert.equal(hub.projects.idle.state(betaProject()).releasedAt, null, 'used again: not released');
  assert.equal(late.ok, true, JSON.stringify(late.error));
  assert.match(JSON.stringify(late.data), /betaOnly/, 'its call to betaOnly is resolved');
  const again = await mcp(client, 'cos_graph_context', { node: 'src/beta.ts::betaOnly' });
  assert.equal(again.ok, true);
  assert.match(JSON.stringify(again.data), /lateBeta/, 'betaOnly is called from the new file');
  const docs = await mcp(client, 'cos_doc_search', { query: 'setup' });
  assert.equal(docs.ok, true, JSON.stringify(docs.error));
  assert.match(JSON.stringify(docs.data), /beta-guide\.md/);
  const state = hub.projects.idle.state(betaProject());
  assert.equal(state.idle, false);
  assert.deepEqual(state.released, []);

  // A write brings the board's file writer back.
  const back = await mcp(client, 'cos_task_move', { id: 'TASK-1', to: 'icebox', expected_version: 2 });
  assert.equal(back.ok, true, JSON.stringify(back.error));
  assert.match(readFileSync(join(beta.repo, 'docs/tasks/TASK-1-beta-1.md'), 'utf8'), /status: icebox/);
  // The call writer came back too: the calls after the release are recorded, under the origin the
  // released thread had written (handed to the next one, not written twice).
  assert.equal(calls('beta', 'cos_graph_context').length, sessionCalls + 2);
  assert.equal(origins(), originsBefore);
  // Letting threads go is routine: nothing about it is worth a warning.
  for (const slug of ['alpha', 'beta', 'gamma']) {
    const warnings = hub.projects
      .get(slug)!
      .hub.db.prepare("SELECT message FROM log_events WHERE level != 'info'")
      .pluck()
      .all();
    assert.deepEqual(warnings, [], `${slug} logged no warning`);
  }
  // A write to the graph after the release still works the same way: an edit of the new file.
  writeFileSync(join(beta.repo, 'src/late.ts'), 'export function lateBeta2(): number {\n  return 2;\n}\n');
  await waitFor('the edit to be indexed', () =>
    betaDb.prepare('SELECT 1 FROM graph_nodes WHERE uid = ?').get('code:function:src/late.ts::lateBeta2')
      ? true
      : undefined,
  );
});

test("the hub's own page polling is neither a recorded call nor use of a project", async () => {
  const client = await connect('/p/beta');
  assert.equal((await mcp(client, 'cos_health', {})).ok, true);
  const usedAt = (await project('beta')).last_used_at;
  const pollsBefore = calls('alpha', 'cos_project_list').length;
  const timelineBefore = calls('beta', 'cos_observability_timeline').length;
  // What the home page repeats every few seconds, in the background.
  for (let i = 0; i < 3; i++) {
    await listProjects();
    const res = await fetch(`${hub.url}/p/beta/api/observability/timeline?limit=25`, {
      headers: { 'x-cos-background': '1' },
    });
    assert.equal(res.status, 200);
  }
  assert.equal(calls('alpha', 'cos_project_list').length, pollsBefore, 'no row in the default project');
  assert.equal(calls('beta', 'cos_observability_timeline').length, timelineBefore, 'no row in beta');
  assert.equal((await project('beta')).last_used_at, usedAt, 'polling is not use');
  // Nor does it reach the live stream's tool-called events or the metrics: the only record there is.
  const metrics = await fetch(`${hub.url}/metrics`).then((r) => r.text());
  assert.doesNotMatch(metrics, /tool="cos_project_list"/);

  // The same reads without the header are somebody's calls: recorded, and use.
  await new Promise((r) => setTimeout(r, 5));
  const res = await fetch(`${hub.url}/p/beta/api/observability/timeline?limit=25`);
  assert.equal(res.status, 200);
  assert.equal(calls('beta', 'cos_observability_timeline').length, timelineBefore + 1);
  assert.ok((await project('beta')).last_used_at > usedAt, 'a call without the header is use');
  // The header only ever marks reads: a write sent with it is recorded like any other.
  const logged = calls('beta', 'cos_work_log_append').length;
  const write = await fetch(`${hub.url}/p/beta/api/board/tasks/TASK-1/work-log`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cos-background': '1' },
    body: JSON.stringify({ text: 'checked by hand' }),
  });
  assert.equal(write.status, 200, await write.text());
  assert.equal(calls('beta', 'cos_work_log_append').length, logged + 1);
});
