// npm run bench:answers — what an agent session pays for, before and while it uses the hub (issue 17):
// tools/list's bytes and latency, the bytes and estimated tokens of a fixed set of agent questions, the
// export with default arguments, and bytes on the wire with and without compression. Prints each target
// with met / not met.
//
//   npm run bench:answers [-- --runs 200] [--rounds 5]
//
// The corpus (scripts/lib/answers.ts, "bench" size) is Fastify's own sources and docs as the lock file
// pins them, 300 generated task files plus two hand-written ones, 200 observations and an evidence
// bundle, committed to git with one file changed after. The hub runs in this process on a real port with
// every service; every figure is read from real HTTP answers (node:http, so the bytes are the wire's).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import { buildApp, WEB_DIST } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createHub } from '../../server/hub.ts';
import { listingOf } from '../../server/mcp/listing.ts';
import { catalog } from '../../server/tools/catalog.ts';
import { PROFILES } from '../../server/tools/profiles.ts';
import {
  budgetSize,
  envelopeSchemaFor,
  estimateTokens,
  TOKEN_BUDGET_CHARS,
} from '../../shared/envelope/index.ts';
import { agentQuestions, defaultCalls, FIRST_TASK, seedCalls, writeCorpus } from '../lib/answers.ts';
import { fmt, percentile, table } from './lib.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '200' }, rounds: { type: 'string', default: '5' } },
});
const RUNS = Number(values.runs);
const ROUNDS = Number(values.rounds);

const dir = mkdtempSync(join(tmpdir(), 'cos-bench-answers-'));
const repo = join(dir, 'repo');
mkdirSync(repo);
const plan = writeCorpus(repo, 'bench');
const hub = createHub(
  loadConfig(
    { COS_REPO: repo, COS_STATE_DIR: join(dir, 'state'), COS_PORT: '0', COS_RATE_LIMIT_RPS: '0' },
    {},
    repo,
  ),
  { logger: pino({ level: 'warn' }, pino.destination({ dest: join(dir, 'bench.log'), sync: false })) },
);
const app = await buildApp(hub);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
await hub.start();
await hub.services.graph.ready();

const agent = new Agent({ keepAlive: true, maxSockets: 8 });
interface Wire {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes as they crossed the wire. */
  wire: number;
  text: string;
}

function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          const text = (
            encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw
          ).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, wire: raw.length, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What Node's fetch (and so the MCP SDK client) sends, and what a browser sends. */
const NODE_FETCH = 'gzip, deflate';
const BROWSER = 'gzip, deflate, br';
const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function session(query = ''): Promise<string> {
  const init = await send(
    'POST',
    `/mcp${query}`,
    MCP,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  );
  const id = String(init.headers['mcp-session-id']);
  await send(
    'POST',
    '/mcp',
    { ...MCP, 'mcp-session-id': id },
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  );
  return id;
}

let rpcId = 1;
const rpc = (sid: string, method: string, params: unknown, encoding?: string) =>
  send(
    'POST',
    '/mcp',
    { ...MCP, 'mcp-session-id': sid, ...(encoding ? { 'accept-encoding': encoding } : {}) },
    JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method, params }),
  );

// biome-ignore lint/suspicious/noExplicitAny: answers are read by shape
type Env = any;
async function callTool(sid: string, name: string, args: unknown, encoding?: string) {
  const res = await rpc(sid, 'tools/call', { name, arguments: args }, encoding);
  const result = JSON.parse(res.text).result as { content: { text: string }[]; structuredContent: Env };
  return { res, text: result.content[0]!.text, env: result.structuredContent };
}

const targets: [string, string, boolean][] = [];
const target = (name: string, value: string, met: boolean) => targets.push([name, value, met]);
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

try {
  const all = await session();
  const core = await session('?tools=core');

  // Seed memory and the evidence bundle through the tools, as agents do.
  const observations: number[] = [];
  for (const seed of seedCalls('bench')) {
    const { env } = await callTool(all, seed.tool, seed.args);
    if (!env.ok) throw new Error(`${seed.tool}: ${JSON.stringify(env.error)}`);
    if (env.data.observation) observations.push(env.data.observation.id);
  }
  // A message to this session, for cos_message_ack to take.
  const sent = await callTool(all, 'cos_message_send', { to: all, body: 'Ack this one.' });
  if (!sent.env.ok) throw new Error(`cos_message_send: ${JSON.stringify(sent.env.error)}`);
  const ids = {
    task: FIRST_TASK,
    observation: observations[0]!,
    doomed: observations[1]!,
    agent: all,
    message: sent.env.data.id as string,
  };

  // 1. tools/list.
  const listAll = await rpc(all, 'tools/list', {});
  const listCore = await rpc(core, 'tools/list', {});
  const toolCount = (JSON.parse(listAll.text).result.tools as unknown[]).length;
  const coreCount = (JSON.parse(listCore.text).result.tools as unknown[]).length;
  // The same tools in the form tools/list had before issue 17 (the whole envelope as every outputSchema,
  // field descriptions and bounds kept, the title twice), computed here so the two compare in one run.
  const stripIds = (s: unknown) => JSON.parse(JSON.stringify(s, (k, v) => (k === '$id' ? undefined : v)));
  const before = JSON.stringify({
    tools: catalog
      .filter((t) => t.mcp !== false)
      .map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: stripIds(t.input),
        outputSchema: { type: 'object', ...stripIds(envelopeSchemaFor(t.output)) },
        annotations: { title: t.title, ...t.annotations },
      })),
  }).length;
  const timings: { plain: number[]; gzip: number[] } = { plain: [], gzip: [] };
  let gzipWire = 0;
  for (let i = 0; i < RUNS; i++) {
    // Alternated, so a change in the machine's load hits both alike.
    for (const mode of ['plain', 'gzip'] as const) {
      const t0 = performance.now();
      const res = await rpc(all, 'tools/list', {}, mode === 'gzip' ? NODE_FETCH : undefined);
      timings[mode].push(performance.now() - t0);
      if (mode === 'gzip') gzipWire = res.wire;
    }
  }
  const p50 = median(timings.plain);
  const p50gzip = median(timings.gzip);
  target(
    `tools/list, every module on (${toolCount} tools)`,
    `${listAll.wire} bytes (before: ${before})`,
    listAll.wire <= 40_000,
  );
  target('tools/list p50 (round trip on loopback)', `${fmt(p50)} ms (gzip: ${fmt(p50gzip)} ms)`, p50 <= 5);
  target(`tools/list, core profile (${coreCount} tools)`, `${listCore.wire} bytes`, listCore.wire <= 12_000);

  // The SDK client compiles a validator per outputSchema on every listTools: what a session pays there.
  const clientTimes: number[] = [];
  const sdk = new Client({ name: 'bench', version: '1' });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await sdk.listTools();
    clientTimes.push(performance.now() - t0);
  }
  await sdk.close();

  // 2. The agent questions, and every tool's default answer.
  const questionRows: (string | number)[][] = [];
  const graphTokens: number[] = [];
  const allTokens: number[] = [];
  for (const q of agentQuestions(plan, ids)) {
    const plain = await callTool(all, q.tool, q.args);
    const packed = await callTool(all, q.tool, q.args, NODE_FETCH);
    if (!plain.env.ok) throw new Error(`${q.tool}: ${JSON.stringify(plain.env.error)}`);
    const tokens = estimateTokens(plain.text);
    allTokens.push(tokens);
    if (q.graph) graphTokens.push(tokens);
    const meta = plain.env.data.meta;
    questionRows.push([
      q.ask,
      `\`${q.tool}\``,
      Buffer.byteLength(plain.text),
      tokens,
      plain.res.wire,
      packed.res.wire,
      meta.truncated ? 'cut' : meta.next_cursor || meta.next_offset ? 'paged' : '-',
    ]);
  }
  target('median graph answer', `${median(graphTokens)} tokens`, median(graphTokens) <= 2000);
  target(
    'largest answer of the questions',
    `${Math.max(...allTokens)} tokens`,
    Math.max(...allTokens) <= 8000,
  );

  const exportDefault = await callTool(all, 'cos_graph_export', {});
  const exportSize = budgetSize(exportDefault.text);
  const page = exportDefault.env.data.meta.page;
  target(
    'cos_graph_export, default arguments, over MCP',
    `${exportSize} budget-chars${page ? `, ${page.nodes} of ${page.of_nodes} nodes, says how to get more` : ''}`,
    exportSize <= TOKEN_BUDGET_CHARS &&
      (page === undefined || typeof exportDefault.env.data.meta.more === 'string'),
  );

  const defaults: { tool: string; size: number }[] = [];
  const planned = defaultCalls(plan, ids);
  // As the budget test does: a tool the plan leaves out is called with no arguments.
  const unplanned = catalog
    .filter((t) => t.mcp !== false && !planned.some((c) => c.tool === t.name))
    .map((t) => ({ tool: t.name, args: {} }));
  for (const c of [...planned, ...unplanned]) {
    const { text } = await callTool(all, c.tool, c.args);
    defaults.push({ tool: c.tool, size: budgetSize(text) });
  }
  const overBudget = defaults.filter((d) => d.size > TOKEN_BUDGET_CHARS);
  const largestDefault = defaults.reduce((a, b) => (b.size > a.size ? b : a));
  target(
    `every tool's default MCP answer (${defaults.length} tools)`,
    overBudget.length === 0
      ? `largest ${largestDefault.size} budget-chars (${largestDefault.tool})`
      : overBudget.map((d) => `${d.tool} ${d.size}`).join(', '),
    overBudget.length === 0,
  );

  // 3. Bytes on the wire.
  const wireRows: (string | number)[][] = [];
  let uncompressed = 0;
  const wire = async (what: string, method: string, path: string, body?: string, sid?: string) => {
    const headers = (encoding?: string) => ({
      ...(body ? MCP : {}),
      ...(sid ? { 'mcp-session-id': sid } : {}),
      ...(encoding ? { 'accept-encoding': encoding } : {}),
    });
    const plain = await send(method, path, headers(), body);
    const node = await send(method, path, headers(NODE_FETCH), body);
    const browser = await send(method, path, headers(BROWSER), body);
    if (plain.wire > 1024 && (!node.headers['content-encoding'] || !browser.headers['content-encoding']))
      uncompressed++;
    wireRows.push([
      what,
      plain.wire,
      `${node.wire} (${node.headers['content-encoding'] ?? 'none'})`,
      `${browser.wire} (${browser.headers['content-encoding'] ?? 'none'})`,
      fmt(plain.wire / Math.min(node.wire, browser.wire), 1),
    ]);
  };
  const list = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
  const board = JSON.stringify({
    jsonrpc: '2.0',
    id: 9,
    method: 'tools/call',
    params: { name: 'cos_task_board', arguments: {} },
  });
  await wire('MCP tools/list', 'POST', '/mcp', list, all);
  await wire('MCP cos_task_board', 'POST', '/mcp', board, all);
  await wire('REST GET /api/board/list', 'GET', '/api/board/list');
  await wire('REST GET /api/graph/export?max_nodes=800', 'GET', '/api/graph/export?max_nodes=800');
  await wire('GET /openapi.json', 'GET', '/openapi.json');
  if (existsSync(join(WEB_DIST, 'index.html'))) {
    await wire('SPA /', 'GET', '/');
    const html = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
    for (const asset of [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!))
      await wire(`SPA /${asset}`, 'GET', `/${asset}`);
  }
  target(
    'HTTP answers over 1 KB compressed when accepted',
    `${uncompressed} not compressed of ${wireRows.length}`,
    uncompressed === 0,
  );

  // 4. What compressing MCP answers costs the hot path: the same call with and without Accept-Encoding,
  // alternated, this process's CPU per call (the hub and the client share it) and latency.
  const cost: { plain: number[]; gzip: number[]; cpuPlain: number[]; cpuGzip: number[] } = {
    plain: [],
    gzip: [],
    cpuPlain: [],
    cpuGzip: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['plain', 'gzip'] as const) {
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await rpc(
          all,
          'tools/call',
          { name: 'cos_task_board', arguments: {} },
          mode === 'gzip' ? NODE_FETCH : undefined,
        );
        cost[mode].push(performance.now() - t0);
      }
      const cpu = process.cpuUsage(cpu0);
      (mode === 'gzip' ? cost.cpuGzip : cost.cpuPlain).push((cpu.user + cpu.system) / RUNS);
    }
  }

  const [l1, l5, l15] = loadavg().map((x) => x.toFixed(1));
  console.log(
    `bench:answers — node ${process.version}, ${availableParallelism()} cores, load average ${l1} ${l5} ${l15}, ${new Date().toISOString()}\n`,
  );
  console.log(
    table(
      ['target', 'measured', 'verdict'],
      targets.map(([n, v, m]) => [n, v, m ? 'met' : 'not met']),
    ),
  );
  console.log(
    `\ntools/list round trips: ${RUNS} each, plain p50 ${fmt(p50)} ms p99 ${fmt(
      percentile(
        [...timings.plain].sort((a, b) => a - b),
        99,
      ),
    )} ms; gzip (${gzipWire} bytes on the wire) p50 ${fmt(p50gzip)} ms. The SDK Client's listTools (request, and a validator compiled per outputSchema): median ${fmt(median(clientTimes))} ms over 20.`,
  );
  const sizes = catalog
    .filter((t) => t.mcp !== false)
    .map((t) => [t.name, JSON.stringify(listingOf(t)).length, PROFILES.core.has(t) ? 'core' : ''] as const)
    .sort((a, b) => b[1] - a[1]);
  console.log(
    `Largest tools in the listing: ${sizes
      .slice(0, 5)
      .map(([n, b]) => `${n} ${b}`)
      .join(', ')}.`,
  );
  console.log('\nAgent questions on the corpus (tokens estimated as the envelope counts them):\n');
  console.log(
    table(
      ['question', 'tool', 'bytes', 'tokens', 'wire bytes', 'wire bytes, gzip', 'cut / paged'],
      questionRows,
    ),
  );
  console.log(
    '\nBytes on the wire, without Accept-Encoding, as Node fetch asks (gzip, deflate), as a browser asks (br too):\n',
  );
  console.log(table(['answer', 'plain', 'gzip, deflate', 'gzip, deflate, br', 'ratio'], wireRows));
  console.log(
    `\nCompressing MCP answers (cos_task_board, ${RUNS} calls × ${ROUNDS} rounds each, alternated): p50 ${fmt(median(cost.plain))} ms plain, ${fmt(median(cost.gzip))} ms gzip; CPU per call (hub and client, one process) ${fmt(median(cost.cpuPlain), 0)} µs plain, ${fmt(median(cost.cpuGzip), 0)} µs gzip (ratio ${fmt(median(cost.cpuGzip) / median(cost.cpuPlain))}).`,
  );
} finally {
  agent.destroy();
  await app.close();
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
}
