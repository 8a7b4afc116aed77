// A mixed read/write MCP load against a real hub process: N sessions calling tools back to back for a
// while. Used by `npm run bench:load` (32 sessions, 60 s) and by a short CI test. It reports failed
// calls (anything but an expected validation/not_found answer), latency, the hub's memory over time
// and its open file descriptors before, during and after.
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { startHubProcess } from '../../test/support/hub-process.ts';

export interface LoadOptions {
  repo: string;
  sessions: number;
  seconds: number;
}

export interface LoadReport {
  calls: number;
  failed: number;
  failures: string[];
  expectedErrors: number;
  p50: number;
  p99: number;
  rssMb: { start: number; half: number; end: number };
  fds: { before: number; during: number; after: number };
  byTool: Record<string, number>;
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}
const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const hub = await startHubProcess(options.repo);
  const port = Number(new URL(hub.url).port);
  const pid = hub.child.pid!;
  const agent = new Agent({ keepAlive: true, maxSockets: options.sessions * 2 });
  const post = (headers: Record<string, string>, body: unknown) =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          agent,
          headers: { ...HEADERS, ...headers, 'content-length': Buffer.byteLength(text) },
        },
        (res) => {
          let out = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (out += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: out }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  const remove = (session: string) =>
    new Promise<void>((resolve) => {
      request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'DELETE',
          agent,
          headers: { ...HEADERS, 'mcp-session-id': session },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      )
        .on('error', () => resolve())
        .end();
    });

  try {
    // Let the first index passes settle, then take the baseline.
    await new Promise((r) => setTimeout(r, 1500));
    const before = openFds(pid);
    const rssStart = rssMb(pid);
    const sessions: string[] = [];
    for (let i = 0; i < options.sessions; i++) {
      const init = await post(
        {},
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: `load-${i}`, version: '1' },
          },
        },
      );
      sessions.push(String(init.headers['mcp-session-id']));
    }
    const latencies: number[] = [];
    const failures: string[] = [];
    const byTool: Record<string, number> = {};
    let expectedErrors = 0;
    let rssHalf = Number.NaN;
    let fdsDuring = 0;
    const started = Date.now();
    const end = started + options.seconds * 1000;
    const halfTimer = setTimeout(
      () => {
        rssHalf = rssMb(pid);
        fdsDuring = openFds(pid);
      },
      (options.seconds * 1000) / 2,
    );
    let id = 0;
    await Promise.all(
      sessions.map(async (session, s) => {
        let n = 0;
        let lastTask: string | undefined;
        while (Date.now() < end) {
          n++;
          const [name, args, expectError] = nextCall(s, n, lastTask);
          const t0 = performance.now();
          const res = await post(
            { 'mcp-session-id': session },
            { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } },
          );
          latencies.push(performance.now() - t0);
          byTool[name] = (byTool[name] ?? 0) + 1;
          let env:
            | { ok: boolean; data?: { task?: { id: string } }; error?: { category: string; message: string } }
            | undefined;
          try {
            env = (JSON.parse(res.text) as { result: { structuredContent: typeof env } }).result
              .structuredContent;
          } catch {
            failures.push(`${name}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
            continue;
          }
          if (env?.ok) {
            if (name === 'cos_task_create' && env.data?.task?.id) lastTask = env.data.task.id;
          } else if (
            expectError &&
            (env?.error?.category === 'validation' || env?.error?.category === 'not_found')
          ) {
            expectedErrors++;
          } else {
            failures.push(`${name}: ${env?.error?.category}: ${env?.error?.message}`);
          }
        }
      }),
    );
    clearTimeout(halfTimer);
    const rssEnd = rssMb(pid);
    await Promise.all(sessions.map(remove));
    agent.destroy();
    await new Promise((r) => setTimeout(r, 1000));
    const after = openFds(pid);
    latencies.sort((a, b) => a - b);
    const pick = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? Number.NaN;
    return {
      calls: latencies.length,
      failed: failures.length,
      failures: failures.slice(0, 20),
      expectedErrors,
      p50: pick(50),
      p99: pick(99),
      rssMb: { start: rssStart, half: rssHalf, end: rssEnd },
      fds: { before, during: fdsDuring, after },
      byTool,
    };
  } finally {
    agent.destroy();
    await hub.stop();
  }
}

/** A mix of reads and writes; every tenth call is a deliberately bad one (icebox → testing is no transition). */
function nextCall(
  session: number,
  n: number,
  lastTask: string | undefined,
): [string, Record<string, unknown>, boolean] {
  const agentSession = `load-agent-${session}`;
  switch (n % 10) {
    case 0:
      return [
        'cos_task_move',
        { id: lastTask ?? 'TASK-999999', to: 'testing', agent_session: agentSession },
        true,
      ];
    case 1:
      return [
        'cos_task_create',
        { title: `Load task ${session}-${n}`, ready: true, agent_session: agentSession },
        false,
      ];
    case 2:
      return lastTask
        ? ['cos_work_log_append', { id: lastTask, text: `step ${n}`, agent_session: agentSession }, false]
        : ['cos_health', {}, false];
    case 3:
      return ['cos_task_board', { limit: 10 }, false];
    case 4:
      return ['cos_task_search', { query: `load ${n % 7}` }, false];
    case 5:
      return [
        'cos_observation_record',
        {
          title: `Observation ${session}-${n}`,
          narrative: 'seen under load',
          type: 'fact',
          session_id: agentSession,
        },
        false,
      ];
    case 6:
      return ['cos_search', { query: 'load' }, false];
    case 7:
      return ['cos_doc_search', { query: 'guide' }, false];
    case 8:
      return ['cos_presence_query', {}, false];
    default:
      return ['cos_metrics', { window: '5m' }, false];
  }
}
