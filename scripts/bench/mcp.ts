// npm run bench:mcp — MCP tools/call throughput and latency over Streamable HTTP with 1, 8 and 32
// concurrent sessions, against a bare Fastify route answering the same ~2 KB in the same run.
// The server runs in a child process; this process is the load generator (both share the 2 cores).
// BENCH_SECONDS (default 5) sets the length of each measurement; OVERHEAD_ROUNDS (default 3) how many
// recording-on/recording-off pairs are alternated for the cost of recording.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { threadSchedstat } from '../lib/proc.ts';
import { fmt, summarize, table } from './lib.ts';

/** CPU time the server's main thread (tid = pid) has run, in µs. */
const mainThreadMicros = (pid: number) => threadSchedstat(pid).runMs * 1000;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Alternating recording-on/recording-off measurements per session count. */
const OVERHEAD_ROUNDS = Number(process.env.OVERHEAD_ROUNDS ?? 3);
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
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
/** The server's process id, for its main thread's CPU time. */
let serverPid = 0;
async function serverCpuMicros(): Promise<number> {
  const u = JSON.parse(await get(serverPort, '/cpu')) as { user: number; system: number };
  return u.user + u.system;
}

async function load(concurrency: number, once: () => Promise<number>, seconds = SECONDS) {
  const latencies: number[] = [];
  let bytes = 0;
  const cpu0 = await serverCpuMicros();
  const main0 = mainThreadMicros(serverPid);
  const end = performance.now() + seconds * 1000;
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
  const mainPerCall = (mainThreadMicros(serverPid) - main0) / latencies.length;
  return { rps: latencies.length / elapsed, bytes, cpuPerCall, mainPerCall, ...summarize(latencies) };
}

// Debian's wrk, when installed, is the load generator: a C client costs the two cores far less than a
// Node one, so the figures say more about the hub. Without it the Node client above is used.
const WRK = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => existsSync(p));

function parseWrk(text: string, seconds: number) {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
  const ms = (label: string) => {
    const m = new RegExp(`\\s${label}%\\s+([\\d.]+)(us|ms|s)`).exec(text);
    if (!m) return Number.NaN;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  const total = Number(/(\d+) requests in/.exec(text)?.[1] ?? 0);
  return { rps, p50: ms('50'), p99: ms('99'), n: total || Math.round(rps * seconds) };
}

async function wrkLoad(
  port: number,
  path: string,
  concurrency: number,
  seconds: number,
  script?: string,
  args: string[] = [],
) {
  const cpu0 = await serverCpuMicros();
  const main0 = mainThreadMicros(serverPid);
  const out = await new Promise<string>((resolve, reject) => {
    const argv = ['-t1', `-c${concurrency}`, `-d${seconds}s`, '--latency'];
    if (script) argv.push('-s', script);
    argv.push(`http://127.0.0.1:${port}${path}`);
    if (args.length) argv.push('--', ...args);
    const child = spawn(WRK!, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout!.on('data', (c) => (text += c));
    child.on('error', reject);
    child.on('exit', () => resolve(text));
  });
  const r = parseWrk(out, seconds);
  const cpuPerCall = ((await serverCpuMicros()) - cpu0) / r.n;
  const mainPerCall = (mainThreadMicros(serverPid) - main0) / r.n;
  return { rps: r.rps, p50: r.p50, p99: r.p99, cpuPerCall, mainPerCall, bytes: 0 };
}

interface Server {
  child: ReturnType<typeof spawn>;
  hub: number;
  bare: number;
}

async function startServer(recordCalls: boolean): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./mcp-server.ts', import.meta.url).pathname],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, COS_RECORD_CALLS: recordCalls ? '1' : '0' },
    },
  );
  const first = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return { child, ...(JSON.parse(first) as { hub: number; bare: number }) };
}

async function measureMcp(server: Server, concurrency: number, seconds = SECONDS) {
  serverPort = server.bare;
  serverPid = server.child.pid ?? 0;
  const sessions = await Promise.all(Array.from({ length: concurrency }, () => openSession(server.hub)));
  if (WRK) {
    const probe = await post(
      server.hub,
      '/mcp',
      { ...MCP_HEADERS, 'mcp-session-id': sessions[0]! },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'tools/call',
        params: { name: 'cos_bench_rows', arguments: {} },
      }),
    );
    const script = new URL('./mcp-call.lua', import.meta.url).pathname;
    return {
      ...(await wrkLoad(server.hub, '/mcp', concurrency, seconds, script, sessions)),
      bytes: probe.text.length,
    };
  }
  let n = 0;
  return load(
    concurrency,
    async () => {
      const session = sessions[n++ % concurrency]!;
      const res = await post(
        server.hub,
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
    },
    seconds,
  );
}

const rows: (string | number)[][] = [];
const overhead: (string | number)[][] = [];
const recording = await startServer(true);
const notRecording = await startServer(false);
try {
  // Warm both servers (JIT, SQLite page cache) before anything is timed.
  for (const server of [recording, notRecording]) {
    serverPort = server.bare;
    serverPid = server.child.pid ?? 0;
    await load(8, async () => (await get(server.bare, '/rows')).length, 1);
    await measureMcp(server, 8, 1);
  }
  for (const concurrency of [1, 8, 32]) {
    serverPort = recording.bare;
    serverPid = recording.child.pid ?? 0;
    const bare = WRK
      ? await wrkLoad(recording.bare, '/rows', concurrency, SECONDS)
      : await load(concurrency, async () => (await get(recording.bare, '/rows')).length);
    const mcp = await measureMcp(recording, concurrency);
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
      fmt(bare.mainPerCall, 1),
      fmt(mcp.mainPerCall, 1),
      fmt(bare.mainPerCall / mcp.mainPerCall),
      mcp.bytes,
    ]);
    if (concurrency > 1) {
      // Recording on and off alternate, OVERHEAD_ROUNDS times each (the first "on" is the row above):
      // two server processes drift apart on a shared machine, so one pair says little and the median
      // of the pairs' ratios is the figure.
      const pairs: { on: typeof mcp; off: typeof mcp }[] = [];
      for (let round = 0; round < OVERHEAD_ROUNDS; round++) {
        const on = round === 0 ? mcp : await measureMcp(recording, concurrency);
        pairs.push({ on, off: await measureMcp(notRecording, concurrency) });
      }
      const med = (f: (p: { on: typeof mcp; off: typeof mcp }) => number) => median(pairs.map(f));
      overhead.push([
        concurrency,
        pairs.length,
        fmt(
          med((p) => p.on.rps),
          0,
        ),
        fmt(
          med((p) => p.off.rps),
          0,
        ),
        fmt(med((p) => p.on.rps / p.off.rps)),
        fmt(
          med((p) => p.on.cpuPerCall),
          0,
        ),
        fmt(
          med((p) => p.off.cpuPerCall),
          0,
        ),
        fmt(med((p) => p.off.cpuPerCall / p.on.cpuPerCall)),
        fmt(
          med((p) => p.on.mainPerCall),
          1,
        ),
        fmt(
          med((p) => p.off.mainPerCall),
          1,
        ),
        fmt(med((p) => p.off.mainPerCall / p.on.mainPerCall)),
      ]);
    }
  }
} finally {
  recording.child.kill('SIGTERM');
  notRecording.child.kill('SIGTERM');
  agent.destroy();
}
console.log(
  `bench:mcp — ${SECONDS}s per cell, Node ${process.version}, servers in child processes, load from ${WRK ? 'wrk (one thread)' : 'a Node client'}\n`,
);
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
      'bare main thread µs/req',
      'MCP main thread µs/call',
      'main thread ratio (bare/MCP)',
      'MCP answer bytes',
    ],
    rows,
  ),
);
console.log(
  `\nRecording every call on and off (COS_RECORD_CALLS), alternating, medians of ${OVERHEAD_ROUNDS} pairs:\n`,
);
console.log(
  table(
    [
      'sessions',
      'pairs',
      'calls/s recording',
      'calls/s not recording',
      'throughput ratio',
      'CPU µs/call recording',
      'CPU µs/call not recording',
      'CPU ratio (off/on)',
      'main thread µs/call recording',
      'main thread µs/call not recording',
      'main thread ratio (off/on)',
    ],
    overhead,
  ),
);
