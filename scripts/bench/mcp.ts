// npm run bench:mcp — MCP tools/call throughput and latency over Streamable HTTP with 1, 8 and 32
// concurrent sessions, against a bare Fastify route answering the same ~2 KB in the same run.
// The server runs in a child process; this process is the load generator (both share the 2 cores).
// BENCH_SECONDS (default 5) sets the length of each measurement.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fmt, summarize, table } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function post(port: number, path: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

function get(port: number, path: string) {
  return new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

async function openSession(port: number): Promise<string> {
  const init = await post(
    port,
    '/mcp',
    MCP_HEADERS,
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
  const id = init.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error(`no session id: ${init.status} ${init.text}`);
  await post(
    port,
    '/mcp',
    { ...MCP_HEADERS, 'mcp-session-id': id },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  return id;
}

let serverPort = 0;
async function serverCpuMicros(): Promise<number> {
  const u = JSON.parse(await get(serverPort, '/cpu')) as { user: number; system: number };
  return u.user + u.system;
}

async function load(concurrency: number, once: () => Promise<number>) {
  const latencies: number[] = [];
  let bytes = 0;
  const cpu0 = await serverCpuMicros();
  const end = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        bytes = await once();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuPerCall = ((await serverCpuMicros()) - cpu0) / latencies.length;
  return { rps: latencies.length / elapsed, bytes, cpuPerCall, ...summarize(latencies) };
}

const child = spawn(
  process.execPath,
  ['--import', 'tsx', new URL('./mcp-server.ts', import.meta.url).pathname],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const first = await new Promise<string>((resolve) =>
  createInterface({ input: child.stdout! }).once('line', resolve),
);
const ports = JSON.parse(first) as { hub: number; bare: number };
serverPort = ports.bare;

const rows: (string | number)[][] = [];
try {
  for (const concurrency of [1, 8, 32]) {
    const bare = await load(concurrency, async () => (await get(ports.bare, '/rows')).length);
    const sessions = await Promise.all(Array.from({ length: concurrency }, () => openSession(ports.hub)));
    let n = 0;
    const mcp = await load(concurrency, async () => {
      const session = sessions[n++ % concurrency]!;
      const res = await post(
        ports.hub,
        '/mcp',
        { ...MCP_HEADERS, 'mcp-session-id': session },
        JSON.stringify({
          jsonrpc: '2.0',
          id: n,
          method: 'tools/call',
          params: { name: 'cos_bench_rows', arguments: {} },
        }),
      );
      if (res.status !== 200 || !res.text.includes('"ok":true'))
        throw new Error(`call failed: ${res.status} ${res.text.slice(0, 200)}`);
      return res.text.length;
    });
    rows.push([
      concurrency,
      fmt(bare.rps, 0),
      fmt(bare.p50),
      fmt(bare.p99),
      fmt(bare.cpuPerCall, 0),
      fmt(mcp.rps, 0),
      fmt(mcp.p50),
      fmt(mcp.p99),
      fmt(mcp.cpuPerCall, 0),
      fmt(mcp.rps / bare.rps),
      mcp.bytes,
    ]);
  }
} finally {
  child.kill('SIGTERM');
  agent.destroy();
}
console.log(`bench:mcp — ${SECONDS}s per cell, Node ${process.version}, server in a child process\n`);
console.log(
  table(
    [
      'sessions',
      'bare req/s',
      'bare p50 ms',
      'bare p99 ms',
      'bare server CPU µs/req',
      'MCP calls/s',
      'MCP p50 ms',
      'MCP p99 ms',
      'MCP server CPU µs/call',
      'MCP/bare throughput',
      'MCP answer bytes',
    ],
    rows,
  ),
);
