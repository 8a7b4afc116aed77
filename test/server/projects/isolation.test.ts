// One hub, three real temporary git repositories. The hub is started in `alpha` (its default project,
// also at /mcp and /api); `beta` is in the registry from the start; `gamma` is added while the hub runs,
// and `beta` removed. Every path-, uid- and id-taking tool is called in each project, over MCP (the SDK
// client on a real port) and over REST, with the project's own identifiers (it must answer from its own
// data) and with another project's (it must not resolve: no byte of the other project's data comes back).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../server/app.ts';
import { loadConfig } from '../../../server/config.ts';
import { createHub, type Hub } from '../../../server/hub.ts';
import { ProjectHubs } from '../../../server/projects/hubs.ts';
import { ProjectRegistry } from '../../../server/projects/registry.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import type { AnyTool } from '../../../server/tools/define.ts';
import { makeRepo, waitFor } from './support.ts';

interface Env {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { category: string; message: string };
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'cos-projects-')));
const home = join(root, 'home');
const repos = {
  alpha: makeRepo(root, 'alpha', 3),
  beta: makeRepo(root, 'beta', 1),
  gamma: makeRepo(root, 'gamma', 1),
};
const registry = new ProjectRegistry(home);
let defaultHub: Hub;
let projects: ProjectHubs;
let app: FastifyInstance;
let url: string;
const clients = new Map<string, Client>();

async function connect(prefix: string): Promise<Client> {
  const client = new Client({ name: 'projects-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${prefix}/mcp`, url)));
  return client;
}

async function mcp(prefix: string, name: string, args: Record<string, unknown>): Promise<Env> {
  let client = clients.get(prefix);
  if (!client) {
    client = await connect(prefix);
    clients.set(prefix, client);
  }
  const result = await client.callTool({ name, arguments: args });
  return result.structuredContent as Env;
}

/** The tool's own REST route, its path params filled from the input and the rest as query or body. */
async function rest(prefix: string, tool: AnyTool, args: Record<string, unknown>): Promise<Env> {
  const http = tool.http!;
  const rest: Record<string, unknown> = { ...args };
  const path = http.path.replace(/:([a-z_]+)/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const query = http.method === 'GET' || http.method === 'DELETE';
  const qs = new URLSearchParams();
  if (query) {
    for (const [k, v] of Object.entries(rest)) {
      for (const item of Array.isArray(v) ? v : [v]) qs.append(k, String(item));
    }
  }
  const res = await app.inject({
    method: http.method,
    url: `${prefix}${path}${qs.size > 0 ? `?${qs}` : ''}`,
    ...(query ? {} : { payload: rest }),
  });
  const body = JSON.parse(res.body) as { data?: Record<string, unknown>; error?: Env['error'] };
  return body.error
    ? { ok: false, error: body.error }
    : { ok: true, ...(body.data ? { data: body.data } : {}) };
}

const byName = new Map<string, AnyTool>(catalog.map((t) => [t.name, t]));

/** Both faces; they must agree on ok. */
async function call(prefix: string, name: string, args: Record<string, unknown>, once = false): Promise<Env> {
  const tool = byName.get(name)!;
  // A write is asked once (over MCP) when it may succeed: a second ask would meet the first one's change.
  if (once && tool.mcp !== false) return mcp(prefix, name, args);
  const viaRest = tool.http ? await rest(prefix, tool, args) : undefined;
  if (tool.mcp === false) return viaRest!;
  const viaMcp = await mcp(prefix, name, args);
  if (viaRest)
    assert.equal(viaRest.ok, viaMcp.ok, `${name} over REST and MCP: ${JSON.stringify([viaRest, viaMcp])}`);
  return viaMcp;
}

const WORDS = ['alpha', 'beta', 'gamma'] as const;
type Word = (typeof WORDS)[number];
const prefixOf = (word: Word) => (word === 'alpha' ? '' : `/p/${word}`);

/** The answer, without the text the caller sent (an error may quote it), names no other project. */
function assertOnlyOwn(env: Env, own: Word, sent: Record<string, unknown>, what: string): void {
  let text = JSON.stringify(env).toLowerCase().split(root.toLowerCase()).join('<root>');
  for (const value of Object.values(sent).flat()) {
    if (typeof value === 'string' && value.length > 0) {
      text = text.split(JSON.stringify(value).slice(1, -1).toLowerCase()).join('');
    }
  }
  for (const word of WORDS) {
    if (word === own) continue;
    assert.ok(!text.includes(word), `${what}: a ${own} answer mentions ${word}: ${text.slice(0, 400)}`);
  }
}

const ready = async (word: Word) => {
  const project = await waitFor(`${word} to open`, () => projects.get(word));
  await project.hub.services.graph?.ready();
  // The board and docs index at start; wait until this project's tasks and docs are there.
  await waitFor(`${word}'s board`, () => project.hub.services.board.store.counts({}).length > 0 || undefined);
  await waitFor(`${word}'s docs`, async () => {
    const env = await call(prefixOf(word), 'cos_doc_header', { path: `docs/${word}-guide.md` });
    return env.ok || undefined;
  });
};

before(async () => {
  registry.add({ repo: repos.beta.repo, slug: 'beta' });
  const config = loadConfig({ COS_REPO: repos.alpha.repo, COS_PORT: '0', COS_HOME: home }, {}, root);
  defaultHub = createHub(config, { logSync: true });
  projects = new ProjectHubs(defaultHub, {
    registry,
    open: (c) => createHub(c, { logSync: true }),
    pollMs: 100,
  });
  app = await buildApp(defaultHub, { projects });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  projects.baseUrl = url;
  await defaultHub.start();
  await projects.start();
  await ready('alpha');
  await ready('beta');
  // Each project's memory and supervise state, written through its own MCP endpoint.
  for (const [word, n] of [
    ['alpha', 3],
    ['beta', 1],
  ] as const) {
    for (let i = 1; i <= n; i++) {
      const env = await mcp(prefixOf(word), 'cos_observation_record', {
        title: `${word} observation ${i}`,
        narrative: `Only ${word} knows this.`,
        type: 'fact',
        task_id: 'TASK-1',
        files: [`src/${word}.ts`],
        session_id: `${word}-agent`,
      });
      assert.equal(env.ok, true, JSON.stringify(env.error));
    }
    const out = await mcp(prefixOf(word), 'cos_supervise_record_output', {
      session_id: `run-${word}`,
      role: 'tester',
      output: { summary: `${word} tests`, passed: 1, failed: 0 },
      status: 'ok',
      latency_ms: 3,
    });
    assert.equal(out.ok, true, JSON.stringify(out.error));
  }
});

after(async () => {
  for (const client of clients.values()) await client.close().catch(() => {});
  await app?.close();
  await projects?.close();
  await defaultHub?.close();
  rmSync(root, { recursive: true, force: true });
});

/** What a tool is asked in project `own` (it must answer from its own data) and in another. */
interface Case {
  tool: string;
  own: (w: Word) => Record<string, unknown>;
  /** alpha's identifiers, asked of beta: none may resolve. */
  foreign: Record<string, unknown>[];
  /** The own answer must be ok (false: only isolation is checked, the own call may refuse). */
  ownOk?: boolean;
}

const uidOf = (w: Word) => `code:function:src/${w}.ts::${w}Only`;
const cases: Case[] = [
  { tool: 'cos_task_show', own: () => ({ id: 'TASK-1' }), foreign: [{ id: 'TASK-3' }, { id: 'TASK-2' }] },
  { tool: 'cos_task_history', own: () => ({ id: 'TASK-1' }), foreign: [{ id: 'TASK-3' }] },
  // What a task cost: a task of another project is not_found, never its usage.
  { tool: 'cos_cost_report', own: () => ({ task_id: 'TASK-1' }), foreign: [{ task_id: 'TASK-3' }] },
  { tool: 'cos_task_dependencies', own: () => ({ id: 'TASK-1' }), foreign: [{ id: 'TASK-3' }] },
  { tool: 'cos_task_dependents', own: () => ({ id: 'TASK-1' }), foreign: [{ id: 'TASK-2' }] },
  {
    tool: 'cos_task_changes',
    own: () => ({ id: 'TASK-1' }),
    foreign: [{ id: 'TASK-3' }, { id: 'TASK-1', base: repos.alpha.head }],
  },
  {
    tool: 'cos_task_move',
    own: () => ({ id: 'TASK-1', to: 'icebox', expected_version: 1 }),
    foreign: [{ id: 'TASK-3', to: 'in_progress', expected_version: 1 }],
    ownOk: false,
  },
  {
    tool: 'cos_task_edit',
    own: (w) => ({ id: 'TASK-1', expected_version: 1, outcome: `${w} outcome` }),
    foreign: [{ id: 'TASK-2', expected_version: 1, title: 'hijacked' }],
    ownOk: false,
  },
  {
    tool: 'cos_work_log_append',
    own: (w) => ({ id: 'TASK-1', text: `${w} progress` }),
    foreign: [{ id: 'TASK-3', text: 'hijacked' }],
  },
  {
    tool: 'cos_task_handoff',
    own: (w) => ({ id: 'TASK-1', to: `${w}-nobody`, note: `${w} handoff` }),
    foreign: [{ id: 'TASK-3', to: 'beta-nobody', note: 'hijacked' }],
    ownOk: false,
  },
  // Reservations: each project's own (held while the listing and the foreign release are asked of beta).
  {
    tool: 'cos_files_reserve',
    own: (w) => ({ agent_session: `${w}-agent`, paths: [`src/${w}.ts`], reason: `${w} work` }),
    foreign: [
      { agent_session: 'beta-agent', paths: [join(repos.alpha.repo, 'src/alpha.ts')], reason: 'x' },
      { agent_session: 'beta-agent', paths: ['../alpha/src/alpha.ts'], reason: 'x' },
    ],
  },
  {
    tool: 'cos_files_reservations',
    own: (w) => ({ path: `src/${w}.ts` }),
    foreign: [{ path: 'src/alpha.ts' }, { agent: 'alpha-agent' }, {}],
  },
  {
    tool: 'cos_files_release',
    own: (w) => ({ agent_session: `${w}-agent`, paths: [`src/${w}.ts`] }),
    foreign: [{ agent_session: 'alpha-agent', paths: ['src/alpha.ts'] }],
    ownOk: false,
  },
  { tool: 'cos_details', own: () => ({ id: 1 }), foreign: [{ id: 3 }, { id: 2 }] },
  {
    tool: 'cos_observation_update',
    own: () => ({ id: 1, confidence: 0.9 }),
    foreign: [{ id: 3, title: 'hijacked' }],
  },
  { tool: 'cos_forget', own: () => ({ id: 999 }), foreign: [{ id: 3, reason: 'hijack' }], ownOk: false },
  {
    tool: 'cos_search',
    own: (w) => ({ query: `${w} observation` }),
    foreign: [{ query: 'alpha observation' }, { query: 'observation', session_id: 'alpha-agent' }],
  },
  {
    tool: 'cos_timeline',
    own: (w) => ({ session_id: `${w}-agent` }),
    foreign: [{ session_id: 'alpha-agent' }, {}],
  },
  {
    tool: 'cos_observation_record',
    own: (w) => ({ title: `${w} extra`, type: 'fact', files: [`src/${w}.ts`] }),
    foreign: [],
  },
  {
    tool: 'cos_doc_header',
    own: (w) => ({ path: `docs/${w}-guide.md` }),
    foreign: [
      { path: 'docs/alpha-guide.md' },
      { path: join(repos.alpha.repo, 'docs/alpha-guide.md') },
      { path: '../alpha/docs/alpha-guide.md' },
    ],
  },
  {
    tool: 'cos_doc_search',
    own: (w) => ({ query: `${w} setup` }),
    foreign: [{ query: 'alpha setup' }, { query: 'setup', path_prefix: '../alpha' }],
  },
  {
    tool: 'cos_doc_headers_by',
    own: (w) => ({ key: 'status', value: `${w}-draft` }),
    foreign: [
      { key: 'status', value: 'alpha-draft' },
      { key: 'type', value: 'guide', path_prefix: '../alpha/' },
    ],
  },
  {
    tool: 'cos_supervise_bundle',
    own: (w) => ({ session_id: `run-${w}` }),
    foreign: [{ session_id: 'run-alpha' }],
    ownOk: true,
  },
  {
    tool: 'cos_supervise_role_outputs',
    own: (w) => ({ role: 'tester', session_id: `run-${w}` }),
    foreign: [{ role: 'tester', session_id: 'run-alpha' }, { role: 'tester' }],
  },
  {
    tool: 'cos_supervise_record_output',
    own: (w) => ({
      session_id: `run-${w}`,
      role: 'tester',
      output: { summary: `${w} again`, passed: 1, failed: 0 },
      status: 'ok',
      latency_ms: 1,
    }),
    foreign: [],
  },
  {
    tool: 'cos_graph_resolve',
    own: (w) => ({ name: `${w}Only` }),
    foreign: [{ name: 'alphaOnly' }, { name: 'AlphaStore' }],
  },
  { tool: 'cos_graph_search', own: (w) => ({ query: `${w}Only` }), foreign: [{ query: 'alphaOnly' }] },
  {
    tool: 'cos_graph_context',
    own: (w) => ({ node: uidOf(w) }),
    foreign: [{ node: uidOf('alpha') }, { node: 'alphaOnly' }, { node: 'code:file:src/alpha.ts' }],
  },
  { tool: 'cos_graph_references', own: (w) => ({ node: uidOf(w) }), foreign: [{ node: uidOf('alpha') }] },
  { tool: 'cos_graph_impact', own: (w) => ({ node: uidOf(w) }), foreign: [{ node: uidOf('alpha') }] },
  { tool: 'cos_graph_similar', own: (w) => ({ node: uidOf(w) }), foreign: [{ node: uidOf('alpha') }] },
  {
    tool: 'cos_graph_rename_plan',
    own: (w) => ({ node: uidOf(w), new_name: `${w}Renamed` }),
    foreign: [{ node: uidOf('alpha'), new_name: 'x' }],
  },
  {
    tool: 'cos_graph_path',
    own: (w) => ({ source: `code:file:src/${w}-main.ts`, target: uidOf(w) }),
    foreign: [{ source: 'code:file:src/alpha-main.ts', target: uidOf('alpha') }],
  },
  {
    tool: 'cos_graph_trace',
    own: (w) => ({ entry: `code:method:src/${w}.ts::${w[0]!.toUpperCase()}${w.slice(1)}Store.get` }),
    foreign: [{ entry: 'code:method:src/alpha.ts::AlphaStore.get' }],
    ownOk: false,
  },
  { tool: 'cos_graph_export', own: (w) => ({ root: uidOf(w) }), foreign: [{ root: uidOf('alpha') }] },
  {
    tool: 'cos_graph_dead_code',
    own: () => ({ path_prefix: 'src/' }),
    foreign: [{ path_prefix: '../alpha/src/' }, { path_prefix: join(repos.alpha.repo, 'src') }],
  },
  {
    tool: 'cos_graph_api_surface',
    own: () => ({ path: 'src/' }),
    foreign: [{ path: '../alpha/src/' }, { path: join(repos.alpha.repo, 'src') }],
  },
  {
    tool: 'cos_graph_detect_changes',
    own: () => ({ base: 'HEAD' }),
    foreign: [{ base: repos.alpha.head }, { base: 'HEAD', head: repos.alpha.head }],
  },
  {
    tool: 'cos_graph_reindex',
    own: (w) => ({ paths: [`src/${w}.ts`] }),
    foreign: [{ paths: [join(repos.alpha.repo, 'src/alpha.ts')] }, { paths: ['../alpha/src/alpha.ts'] }],
  },
  {
    tool: 'cos_search_all',
    own: (w) => ({ query: `${w}Only` }),
    foreign: [{ query: 'alphaOnly' }, { query: 'alpha observation' }],
  },
];

// Inputs that name something in one project: a path, a uid or symbol, a task, an observation, a session,
// a revision. Every tool taking one must be in `cases` (or below, with why it is not).
const IDENTIFYING = new Set([
  'id',
  'path',
  'paths',
  'path_prefix',
  'node',
  'source',
  'target',
  'entry',
  'root',
  'name',
  'session_id',
  'task_id',
  'base',
  'head',
  'files',
]);
const NOT_PROJECT_DATA: Record<string, string> = {
  cos_module_set: 'covered on its own below: module switches live in each state directory',
  cos_task_create: 'takes no identifier of existing data; depends_on ids are checked by cos_task_show cases',
};

test('every tool that takes a path, uid or id is checked for isolation', () => {
  const covered = new Set(cases.map((c) => c.tool));
  const missing = catalog
    .filter((t) => Object.keys(t.input.properties).some((p) => IDENTIFYING.has(p)))
    .map((t) => t.name)
    .filter((n) => !covered.has(n) && !(n in NOT_PROJECT_DATA));
  assert.deepEqual(missing, []);
  for (const c of cases) assert.ok(byName.has(c.tool), `${c.tool} is not a tool`);
});

test('each project answers from its own data over MCP and REST; a foreign path, uid or id never resolves', async () => {
  for (const c of cases) {
    for (const word of ['alpha', 'beta'] as const) {
      const args = c.own(word);
      const readOnly = byName.get(c.tool)?.annotations?.readOnlyHint === true;
      const env = await call(prefixOf(word), c.tool, args, !readOnly);
      if (c.ownOk !== false) assert.equal(env.ok, true, `${c.tool} in ${word}: ${JSON.stringify(env.error)}`);
      assertOnlyOwn(env, word, args, `${c.tool} in ${word}`);
    }
    for (const args of c.foreign) {
      const env = await call('/p/beta', c.tool, args);
      assertOnlyOwn(env, 'beta', args, `${c.tool} ${JSON.stringify(args)} in beta`);
    }
  }
  // The writes asked of beta with alpha's ids changed nothing in alpha.
  const task2 = await call('', 'cos_task_show', { id: 'TASK-2' });
  assert.equal(task2.data?.title, 'Alpha task 2');
  const obs3 = await call('', 'cos_details', { id: 3 });
  assert.equal(obs3.ok, true, 'alpha observation 3 is still there');
  assert.match(JSON.stringify(obs3.data), /alpha observation 3/);
  assert.match(
    readFileSync(join(repos.alpha.repo, 'docs/tasks/TASK-3-alpha-3.md'), 'utf8'),
    /status: icebox/,
  );
});

test('the default project is the same at /mcp and /p/<its slug>/mcp; unknown slugs answer 404', async () => {
  const viaDefault = await call('', 'cos_task_show', { id: 'TASK-3' });
  const viaSlug = await call(`/p/${projects.default.slug}`, 'cos_task_show', { id: 'TASK-3' });
  assert.equal(viaDefault.ok, true);
  assert.equal(viaSlug.data?.title, 'Alpha task 3');
  assert.deepEqual(viaSlug.data?.sections, viaDefault.data?.sections);
  for (const path of ['/p/nope/api/board/list', '/p/nope/mcp']) {
    const res = await app.inject({
      method: path.endsWith('mcp') ? 'POST' : 'GET',
      url: path,
      payload: path.endsWith('mcp') ? {} : undefined,
    });
    assert.equal(res.statusCode, 404, path);
    assert.match((JSON.parse(res.body) as { error: { message: string } }).error.message, /no project "nope"/);
  }
});

test('an MCP session of one project is unknown in another', async () => {
  const transport = new StreamableHTTPClientTransport(new URL('/p/beta/mcp', url));
  const client = new Client({ name: 'session-probe', version: '1.0.0' });
  await client.connect(transport);
  const sessionId = transport.sessionId!;
  const res = await fetch(new URL('/mcp', url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(res.status, 404);
  await client.close();
});

test('module switches are per project', async () => {
  const off = await call('/p/beta', 'cos_module_set', { id: 'docs', enabled: false });
  assert.equal(off.ok, true, JSON.stringify(off.error));
  assert.equal((await call('/p/beta', 'cos_doc_header', { path: 'docs/beta-guide.md' })).ok, false);
  assert.equal((await call('', 'cos_doc_header', { path: 'docs/alpha-guide.md' })).ok, true);
  assert.equal((await call('/p/beta', 'cos_module_set', { id: 'docs', enabled: true })).ok, true);
});

test('GET /api/projects lists each project with its URLs and summary, in OpenAPI', async () => {
  const res = await app.inject({ method: 'GET', url: '/api/projects' });
  assert.equal(res.statusCode, 200, res.body);
  const { projects: list } = (JSON.parse(res.body) as { data: { projects: Record<string, unknown>[] } }).data;
  assert.deepEqual(
    list.map((p) => [p.slug, p.default, p.registered]),
    [
      [projects.default.slug, true, false],
      ['beta', false, true],
    ],
  );
  const beta = list[1] as {
    mcp_url: string;
    web_url: string;
    repo: string;
    summary: { tasks: { total: number } };
  };
  assert.equal(beta.mcp_url, `${url}/p/beta/mcp`);
  assert.equal(beta.web_url, `${url}/p/beta/board`);
  assert.equal(beta.repo, repos.beta.repo);
  assert.equal(beta.summary.tasks.total, 1);
  const alpha = list[0] as { summary: { tasks: { total: number } } };
  assert.equal(alpha.summary.tasks.total, 3);
  const openapi = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as {
    paths: Record<string, { get?: { operationId?: string } }>;
  };
  assert.equal(openapi.paths['/api/projects']?.get?.operationId, 'listProjects');
});

test('a project added while the hub runs is served without a restart; a removed one stops', async () => {
  registry.add({ repo: repos.gamma.repo, slug: 'gamma' });
  await ready('gamma');
  const env = await call('/p/gamma', 'cos_task_show', { id: 'TASK-1' });
  assert.equal(env.data?.title, 'Gamma task 1', JSON.stringify(env));
  assertOnlyOwn(
    await call('/p/gamma', 'cos_graph_context', { node: uidOf('alpha') }),
    'gamma',
    { node: uidOf('alpha') },
    'gamma',
  );
  const stream = await fetch(new URL('/p/gamma/api/stream/events', url));
  assert.equal(stream.status, 200);
  await stream.body?.cancel();

  registry.remove('beta');
  await waitFor('beta to close', () => (projects.get('beta') ? undefined : true));
  const gone = await app.inject({ method: 'GET', url: '/p/beta/api/board/tasks/TASK-1' });
  assert.equal(gone.statusCode, 404);
  // Its data stays with its repository.
  assert.ok(readFileSync(join(repos.beta.repo, '.cos/hub.db')).length > 0);
  const list = JSON.parse((await app.inject({ method: 'GET', url: '/api/projects' })).body) as {
    data: { projects: { slug: string }[] };
  };
  assert.deepEqual(
    list.data.projects.map((p) => p.slug),
    [projects.default.slug, 'gamma'],
  );
});
