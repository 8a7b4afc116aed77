// A mixed read/write MCP load against a real hub process: N sessions calling tools back to back for a
// while. Used by `npm run bench:load` (32 sessions, 60 s) and by a short CI test. It reports failed
// calls (anything but an expected validation/not_found answer), latency, the hub's memory over time
// and its open file descriptors before, during and after.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { startHubProcess } from '../../test/support/hub-process.ts';
import { percentile } from '../bench/lib.ts';
import { cpuMs, threadSchedstat } from './proc.ts';

export interface LoadOptions {
  repo: string;
  sessions: number;
  seconds: number;
  /** Node flags for the hub process (LOAD_NODE_ARGS in the bench), e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`. */
  nodeArgs?: string[];
}

export interface LoadReport {
  calls: number;
  failed: number;
  failures: string[];
  expectedErrors: number;
  p50: number;
  p99: number;
  rssMb: { start: number; half: number; end: number };
  /**
   * The V8 heap in use (from /metrics, sampled every second) before the run, and its lowest sample in
   * each half of it: the lowest is the one nearest a full collection, so growth between the halves is
   * live data, not garbage waiting for the collector.
   */
  heapUsedMb: { start: number; half: number; end: number };
  /** Median RSS over each half of the run (one sample a second), in MB. */
  rssMedianMb: { firstHalf: number; secondHalf: number };
  /** RSS and the V8 heap's floor (lowest sample) in each tenth of the run, in MB. */
  memorySeries: { seconds: number; rssMb: number; heapFloorMb: number }[];
  /** The hub's CPU time per call during the run: the whole process, and its main (event loop) thread. */
  cpuMsPerCall: { process: number; main: number };
  /** Share of the run's wall time the main thread spent on the CPU (1 = saturated). */
  mainThreadBusy: number;
  /**
   * Share of the run's wall time the main thread was ready to run but waiting for a core (other
   * processes had them): /proc schedstat. Latency the hub cannot help on a shared machine.
   */
  mainThreadWaitingForCpu: number;
  /**
   * Share of the run's wall time the event loop was busy but its thread neither ran nor waited for a
   * core: blocked in a system call (a synchronous fsync or rename) or sleeping on a SQLite lock. At
   * least this much (the event loop's active time, less CPU and run-queue time).
   */
  mainThreadBlocked: number;
  /** Share of one core this load generator used: near 1 means it, not the hub, may be the bottleneck. */
  generatorBusy: number;
  /** p50 and p99 in ms per tool. */
  latencyByTool: Record<string, { p50: number; p99: number }>;
  fds: { before: number; during: number; after: number };
  /** What the descriptors open after the run but not before point at (sockets, files). */
  fdsLeft: string[];
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
const fdTargets = (pid: number): Map<string, string> => {
  const out = new Map<string, string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      out.set(fd, readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // Closed while listing.
    }
  }
  return out;
};
const openFds = (pid: number) => fdTargets(pid).size;
/** The main thread's time waiting on a run queue, in ms. */
const runQueueWaitMs = (pid: number) => threadSchedstat(pid).waitMs;

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const hub = await startHubProcess(options.repo, {}, options.nodeArgs);
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
    // Let the hub finish starting (the graph's worker and helper threads open their descriptors a while
    // after the hub answers; on a busy machine several seconds after), then take the baseline: the
    // descriptor count unchanged for 1.5 s, or 20 s at most.
    const startedAt = Date.now();
    for (let stable = 0, last = -1; stable < 6 && Date.now() - startedAt < 20_000; ) {
      await new Promise((r) => setTimeout(r, 250));
      const n = openFds(pid);
      stable = n === last ? stable + 1 : 0;
      last = n;
    }
    const fdsBefore = fdTargets(pid);
    const before = fdsBefore.size;
    const rssStart = rssMb(pid);
    // A connection of its own per sample (agent: false), so none stays open to count as a descriptor.
    const scrape = () =>
      new Promise<{ heapMb: number; loopActiveMs: number }>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => {
            const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
            resolve({
              heapMb: value('nodejs_heap_size_used_bytes') / 2 ** 20,
              loopActiveMs: value('cos_event_loop_active_seconds_total') * 1000,
            });
          });
        })
          .on('error', reject)
          .end();
      });
    const heapUsed = async () => (await scrape()).heapMb;
    const heapStart = await heapUsed();
    const heapSamples: { at: number; mb: number; rss: number }[] = [];
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
    const perTool: Record<string, number[]> = {};
    let expectedErrors = 0;
    let rssHalf = Number.NaN;
    let fdsDuring = 0;
    const started = Date.now();
    const end = started + options.seconds * 1000;
    const cpuStart = {
      process: cpuMs(`/proc/${pid}/stat`),
      main: cpuMs(`/proc/${pid}/task/${pid}/stat`),
      waiting: runQueueWaitMs(pid),
      generator: process.cpuUsage(),
      loopActive: (await scrape()).loopActiveMs,
    };
    const sampler = setInterval(() => {
      const at = Date.now() - started;
      const rss = rssMb(pid);
      heapUsed().then(
        (mb) => heapSamples.push({ at, mb, rss }),
        () => {},
      );
    }, 1000);
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
          const ms = performance.now() - t0;
          latencies.push(ms);
          const list = perTool[name] ?? [];
          list.push(ms);
          perTool[name] = list;
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
    clearInterval(sampler);
    const wall = Date.now() - started;
    const cpu = {
      process: cpuMs(`/proc/${pid}/stat`) - cpuStart.process,
      main: cpuMs(`/proc/${pid}/task/${pid}/stat`) - cpuStart.main,
      waiting: runQueueWaitMs(pid) - cpuStart.waiting,
      generator: process.cpuUsage(cpuStart.generator),
      loopActive: (await scrape()).loopActiveMs - cpuStart.loopActive,
    };
    const rssEnd = rssMb(pid);
    const half = (second: boolean) => heapSamples.filter((x) => x.at > wall / 2 === second);
    const median = (xs: number[]) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        50,
      );
    await Promise.all(sessions.map(remove));
    agent.destroy();
    await new Promise((r) => setTimeout(r, 1000));
    const fdsAfter = fdTargets(pid);
    const after = fdsAfter.size;
    const fdsLeft = [...fdsAfter]
      .filter(([fd, target]) => fdsBefore.get(fd) !== target)
      .map(([fd, target]) => `${fd} → ${target}`);
    latencies.sort((a, b) => a - b);
    const latencyByTool: LoadReport['latencyByTool'] = {};
    for (const [tool, list] of Object.entries(perTool)) {
      list.sort((a, b) => a - b);
      latencyByTool[tool] = { p50: percentile(list, 50), p99: percentile(list, 99) };
    }
    return {
      calls: latencies.length,
      failed: failures.length,
      failures: failures.slice(0, 20),
      expectedErrors,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      rssMb: { start: rssStart, half: rssHalf, end: rssEnd },
      heapUsedMb: {
        start: heapStart,
        half: Math.min(...half(false).map((x) => x.mb)),
        end: Math.min(...half(true).map((x) => x.mb)),
      },
      rssMedianMb: {
        firstHalf: median(half(false).map((x) => x.rss)),
        secondHalf: median(half(true).map((x) => x.rss)),
      },
      memorySeries: Array.from({ length: 10 }, (_, i) => {
        const part = heapSamples.filter((x) => x.at > (wall * i) / 10 && x.at <= (wall * (i + 1)) / 10);
        return {
          seconds: Math.round((wall * (i + 1)) / 10000),
          rssMb: part[part.length - 1]?.rss ?? Number.NaN,
          heapFloorMb: Math.min(...part.map((x) => x.mb)),
        };
      }),
      cpuMsPerCall: { process: cpu.process / latencies.length, main: cpu.main / latencies.length },
      mainThreadBusy: cpu.main / wall,
      mainThreadWaitingForCpu: cpu.waiting / wall,
      mainThreadBlocked: Math.max(0, cpu.loopActive - cpu.main - cpu.waiting) / wall,
      generatorBusy: (cpu.generator.user + cpu.generator.system) / 1000 / wall,
      latencyByTool,
      fds: { before, during: fdsDuring, after },
      fdsLeft,
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
