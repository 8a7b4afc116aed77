// npm run bench:team — a team's hubs on one PostgreSQL: N hub processes (`cos serve`, TEAM_HUBS, default
// "2,8": the run is repeated for each count, to show how the cost grows), each on its own clone of one
// bare origin with TEAM_TASKS (1,000) ready tasks, all pointed at one throwaway cluster started here.
//
//   claims   TEAM_AGENTS (16) agents per hub call claim-next until the board is empty: every task must be
//            handed out exactly once (duplicates 0, PostgreSQL's records checked too); p50/p99 per claim.
//   hooks    hook events at TEAM_HOOK_RATE (2,000) a second in all, spread over every hub's agents, for
//            TEAM_HOOK_SECONDS (10): the p99 of the hook round trip (target < 50 ms) and whether the rate
//            was sustained, beside the baseline of the same run: the same load on as many hubs without a
//            team (each its own SQLite), so the team's cost stands out of the machine's noise.
//   latency  from a claim on its own hub's event stream (or a hook event's send) to its arrival on every
//            other hub's stream (/api/stream/events): p50/p99 (target p99 < 1 s).
//   conns    connections each hub holds on PostgreSQL (pg_stat_activity, by application_name).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HubProcess } from '../../test/support/hub-process.ts';
import { startHubProcess } from '../../test/support/hub-process.ts';
import { adminQuery, ownCluster } from '../../test/support/postgres.ts';
import { openSse, type SseClient } from '../../test/support/sse.ts';
import { startTeamHubProcess, teamRepos } from '../../test/support/team.ts';
import { cpuSeconds, fmt, postJson, summarize, table } from './lib.ts';

const HUB_COUNTS = (process.env.TEAM_HUBS ?? '2,8').split(',').map(Number);
const TASKS = Number(process.env.TEAM_TASKS ?? 1000);
const AGENTS = Number(process.env.TEAM_AGENTS ?? 16);
const HOOK_RATE = Number(process.env.TEAM_HOOK_RATE ?? 2000);
const HOOK_SECONDS = Number(process.env.TEAM_HOOK_SECONDS ?? 10);
/** A folder for each team hub's CPU profile (node --cpu-prof), to see where a hub's time goes. */
const CPU_PROF = process.env.TEAM_CPU_PROF;
const profArgs = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [];

const post = (url: string, agent: Agent, body: unknown) => postJson(url, agent, JSON.stringify(body));

interface Run {
  hubs: number;
  claims: {
    n: number;
    duplicates: number;
    inPg: number;
    p50: number;
    p99: number;
    wallS: number;
    failed: number;
  };
  hooks: HookRun;
  latency: {
    claims: { n: number; p50: number; p99: number };
    hooks: { n: number; p50: number; p99: number };
  };
  conns: number[];
  /** The most hook events and tool calls any hub's outbox held during the hook phase (sampled). */
  outboxMax: number;
}

interface HookRun {
  sent: number;
  rate: number;
  p50: number;
  p99: number;
  failed: number;
  /** CPU seconds of the hook phase: the hubs' processes, PostgreSQL's (0 without a team), this one's. */
  cpu: { hubs: number; pg: number; bench: number; wallS: number };
}

/** The postmaster's pid (its backends are its children), from the data directory's postmaster.pid. */
const postmasterPid = (clusterDir: string): number =>
  Number(readFileSync(join(clusterDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);

/**
 * Hook events at HOOK_RATE a second in all for HOOK_SECONDS, AGENTS agent sessions per hub, each on
 * its own keep-alive connection; every 20th event from a probe session of its own (its send time goes
 * into `probes`, for the cross-hub latency).
 */
async function driveHooks(
  urls: string[],
  clones: string[],
  probes: Map<string, { hub: number; at: number }>,
  pids: { hubs: number[]; pg: number | null },
): Promise<HookRun> {
  const cpu = () => {
    const own = process.cpuUsage();
    return {
      hubs: cpuSeconds(pids.hubs),
      pg: pids.pg === null ? 0 : cpuSeconds([pids.pg], true),
      bench: (own.user + own.system) / 1e6,
    };
  };
  const cpu0 = cpu();
  const perHub = HOOK_RATE / urls.length;
  const perAgent = perHub / AGENTS;
  const interval = 1000 / perAgent;
  const hookLatencies: number[] = [];
  let hookFailed = 0;
  let sent = 0;
  let probe = 0;
  const h0 = performance.now();
  const deadline = h0 + HOOK_SECONDS * 1000;
  await Promise.all(
    urls.flatMap((u, i) =>
      Array.from({ length: AGENTS }, async (_, a) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        await new Promise((r) => setTimeout(r, (a * interval) / AGENTS));
        let next = performance.now();
        let tick = 0;
        while (performance.now() < deadline) {
          tick++;
          // Every 20th event comes from an agent session of its own, so its arrival elsewhere can be timed.
          const session = tick % 20 === 0 ? `probe-${i}-${a}-${probe++}` : `hooks-${i}-${a}`;
          if (session.startsWith('probe-')) probes.set(session, { hub: i, at: performance.now() });
          const body = {
            session_id: session,
            hook_event_name: tick % 2 === 0 ? 'PostToolUse' : 'PreToolUse',
            tool_name: 'Edit',
            tool_input: {
              file_path: join(clones[i]!, `src/f${a}.ts`),
              old_string: 'a',
              new_string: 'b',
            },
            tool_response: { filePath: join(clones[i]!, `src/f${a}.ts`) },
            tool_use_id: `t${tick}`,
            cwd: clones[i]!,
          };
          sent++;
          const res = await post(`${u}/api/hooks/events?client=claude-code`, agent, body).catch(() => null);
          if (res?.status === 200) hookLatencies.push(res.ms);
          else hookFailed++;
          next += interval;
          const wait = next - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        agent.destroy();
      }),
    ),
  );
  const hookStats = summarize(hookLatencies);
  const hookWall = (performance.now() - h0) / 1000;
  const cpu1 = cpu();
  return {
    sent,
    rate: sent / hookWall,
    p50: hookStats.p50,
    p99: hookStats.p99,
    failed: hookFailed,
    cpu: {
      hubs: cpu1.hubs - cpu0.hubs,
      pg: cpu1.pg - cpu0.pg,
      bench: cpu1.bench - cpu0.bench,
      wallS: hookWall,
    },
  };
}

/** The baseline of the same run: the same hook load on as many hubs without a team (each its own SQLite). */
async function localHooks(hubCount: number): Promise<HookRun> {
  const repos = teamRepos(hubCount, 0, 'bench-local');
  const hubs: HubProcess[] = [];
  try {
    for (let i = 0; i < hubCount; i++)
      hubs.push(
        await startHubProcess(repos.clones[i]!, { COS_MACHINE: `local-${i}`, COS_LOG_LEVEL: 'warn' }),
      );
    return await driveHooks(
      hubs.map((h) => h.url),
      repos.clones,
      new Map(),
      { hubs: hubs.map((h) => h.child.pid!), pg: null },
    );
  } finally {
    await Promise.all(hubs.map((h) => h.stop()));
    repos.remove();
  }
}

async function runWith(hubCount: number, cluster: Awaited<ReturnType<typeof ownCluster>>): Promise<Run> {
  const dbName = `bench_${hubCount}_${Date.now()}`;
  await adminQuery(cluster.adminUrl, `CREATE DATABASE ${dbName}`);
  const url = cluster.url(dbName);
  const repos = teamRepos(hubCount, TASKS, 'bench-team');
  const hubs: HubProcess[] = [];
  const streams: SseClient[] = [];
  try {
    // One at a time: the first migrates, and eight tsx start-ups at once on two cores take minutes.
    for (let i = 0; i < hubCount; i++)
      hubs.push(
        await startTeamHubProcess(
          repos.clones[i]!,
          url,
          `bench-${i}`,
          {
            COS_RECORD_CALLS: '1',
            COS_LOG_LEVEL: 'warn',
          },
          profArgs,
        ),
      );

    // Where each event was sent from and when: matched on the other hubs' streams.
    const claimSent = new Map<string, { hub: number; at: number }>();
    const hookSent = new Map<string, { hub: number; at: number }>();
    const claimArrived = new Map<string, { hub: number; at: number }[]>();
    const claimLat: number[] = [];
    const hookLat: number[] = [];
    // Each phase on streams of its own: a hub cuts a stream whose reader falls behind (server/http/
    // stream.ts), and under the hook load this process can, which would leave the claims unseen.
    const listen = async () => {
      for (const s of streams.splice(0)) s.close();
      for (const h of hubs) streams.push(await openSse(`${h.url}/api/stream/events`));
      streams.forEach(watch);
    };
    const watch = (s: SseClient, j: number) => {
      s.response.on('data', () => {
        // openSse parses into s.events; read what arrived and forget it (a long run would grow it).
        const now = performance.now();
        for (const e of s.events.splice(0)) {
          const d = e.data as { task_id?: unknown; agent?: unknown; new_status?: unknown };
          if (e.event === 'task-updated' && typeof d.task_id === 'string' && d.new_status === 'in_progress') {
            // The other hubs hear of a claim at its COMMIT, often before its own hub has answered: the
            // arrival is kept and matched with the claim's request once the claims are over.
            const seen = claimArrived.get(d.task_id) ?? [];
            seen.push({ hub: j, at: now });
            claimArrived.set(d.task_id, seen);
          } else if (e.event === 'agent-event' && typeof d.agent === 'string') {
            const sent = hookSent.get(d.agent);
            if (sent && sent.hub !== j) hookLat.push(now - sent.at);
          }
        }
      });
    };

    // hooks, before the claims: both runs then ask the same of a hook (no task in progress to weigh).
    await listen();
    // Whether the outboxes keep up (a growing outbox is latency the streams alone cannot tell apart
    // from this process reading them late): each hub's health, sampled twice a second.
    let outboxMax = 0;
    const sampler = setInterval(() => {
      for (const h of hubs)
        fetch(`${h.url}/api/health`)
          .then((r) => r.json() as Promise<{ data?: { team?: { outbox?: number } } }>)
          .then((b) => {
            outboxMax = Math.max(outboxMax, b.data?.team?.outbox ?? 0);
          })
          .catch(() => {});
    }, 500);
    const hooks = await driveHooks(
      hubs.map((h) => h.url),
      repos.clones,
      hookSent,
      { hubs: hubs.map((h) => h.child.pid!), pg: postmasterPid(cluster.dir) },
    );
    clearInterval(sampler);
    // Let the last events travel before reading the latencies.
    await new Promise((r) => setTimeout(r, 2000));

    // claims
    await listen();
    const claimed = new Map<string, number>();
    const lat: number[] = [];
    let failed = 0;
    const t0 = performance.now();
    await Promise.all(
      hubs.flatMap((h, i) =>
        Array.from({ length: AGENTS }, async (_, a) => {
          const agent = new Agent({ keepAlive: true, maxSockets: 1 });
          for (;;) {
            const at = performance.now();
            const res = await post(`${h.url}/api/board/claim-next`, agent, {
              agent_session: `bench-${i}-${a}`,
              // The bench counts claims, not the WIP cap (the board's default of 3 would end it at once).
              bypass_wip: true,
              reason: 'bench',
            });
            if (res.status !== 200) {
              failed++;
              if (failed > 1000) throw new Error(`claims keep failing: ${JSON.stringify(res.json)}`);
              continue;
            }
            lat.push(res.ms);
            const data = (res.json as { data: { claimed: boolean; task: { id: string } | null } }).data;
            if (!data.claimed || !data.task) break;
            claimSent.set(data.task.id, { hub: i, at });
            claimed.set(data.task.id, (claimed.get(data.task.id) ?? 0) + 1);
          }
          agent.destroy();
        }),
      ),
    );
    const wallS = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    // From the claim on its own hub's stream to the same claim on each other hub's: the feed's delay
    // (a claim is announced on its own hub after its file is written, so the feed can even be first).
    for (const [task, sent] of claimSent) {
      const arrivals = claimArrived.get(task) ?? [];
      const own = arrivals.find((a) => a.hub === sent.hub);
      if (own) for (const seen of arrivals) if (seen.hub !== sent.hub) claimLat.push(seen.at - own.at);
    }
    const duplicates = [...claimed.values()].filter((n) => n > 1).length;
    const pg = await adminQuery(
      url.replace(`/${dbName}`, `/${dbName}`),
      "SELECT count(*)::int AS n FROM team_tasks WHERE status = 'in_progress' AND agent_session IS NOT NULL",
    );
    const inPg = (pg.rows[0] as { n: number }).n;
    const claimStats = summarize(lat);

    const conns = await adminQuery(
      cluster.adminUrl,
      `SELECT application_name AS app, count(*)::int AS n FROM pg_stat_activity WHERE datname = '${dbName}' GROUP BY 1`,
    );
    const perHubConns = hubs.map((_, i) =>
      (conns.rows as { app: string; n: number }[])
        .filter((r) => r.app === `cos-hub bench-${i}` || r.app === `cos-hub bench-${i} listen`)
        .reduce((s, r) => s + r.n, 0),
    );
    return {
      hubs: hubCount,
      claims: {
        n: claimed.size,
        duplicates,
        inPg,
        p50: claimStats.p50,
        p99: claimStats.p99,
        wallS,
        failed,
      },
      hooks,
      latency: { claims: summarize(claimLat), hooks: summarize(hookLat) },
      conns: perHubConns,
      outboxMax,
    };
  } finally {
    for (const s of streams) s.close();
    await Promise.all(hubs.map((h) => h.stop()));
    await adminQuery(cluster.adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    repos.remove();
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'cos-bench-team-'));
const cluster = await ownCluster();
const runs: Run[] = [];
const baselines: HookRun[] = [];
try {
  for (const n of HUB_COUNTS) {
    process.stderr.write(`bench:team: ${n} hubs without a team (the baseline)…\n`);
    baselines.push(await localHooks(n));
    process.stderr.write(`bench:team: ${n} hubs in a team…\n`);
    runs.push(await runWith(n, cluster));
  }
} finally {
  cluster.stop();
  rmSync(scratch, { recursive: true, force: true });
}

console.log(
  `bench:team on ${cpus().length} cores, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${TASKS} tasks, ${AGENTS} agents per hub, hooks ${HOOK_RATE}/s for ${HOOK_SECONDS} s\n`,
);
console.log(
  table(
    ['hubs', 'claims', 'duplicates', 'in PG', 'claim p50 ms', 'claim p99 ms', 'claims/s', 'failed'],
    runs.map((r) => [
      r.hubs,
      r.claims.n,
      r.claims.duplicates,
      r.claims.inPg,
      fmt(r.claims.p50),
      fmt(r.claims.p99),
      fmt(r.claims.n / r.claims.wallS, 0),
      r.claims.failed,
    ]),
  ),
);
console.log();
console.log(
  table(
    ['hubs', 'store', 'hook events', 'events/s', 'hook p50 ms', 'hook p99 ms', 'failed', 'p99 vs local'],
    runs.flatMap((r, i) => {
      const b = baselines[i]!;
      return [
        [r.hubs, 'local (no team)', b.sent, fmt(b.rate, 0), fmt(b.p50), fmt(b.p99), b.failed, '1.00'],
        [
          r.hubs,
          'team',
          r.hooks.sent,
          fmt(r.hooks.rate, 0),
          fmt(r.hooks.p50),
          fmt(r.hooks.p99),
          r.hooks.failed,
          fmt(r.hooks.p99 / b.p99),
        ],
      ];
    }),
  ),
);
console.log();
// Where the two cores went while the hooks ran: a hub's answer waits for a core as much as for its work.
const cpuRow = (hubs: number, store: string, h: HookRun) => [
  hubs,
  store,
  fmt(h.cpu.wallS, 1),
  fmt(h.cpu.hubs, 1),
  fmt(h.cpu.pg, 1),
  fmt(h.cpu.bench, 1),
  fmt(((h.cpu.hubs + h.cpu.pg) / h.sent) * 1e6, 0),
];
console.log(
  table(
    ['hubs', 'store', 'hook phase s', 'CPU s: hubs', 'PostgreSQL', 'load generator', 'hubs + PG µs/event'],
    runs.flatMap((r, i) => [
      cpuRow(r.hubs, 'local (no team)', baselines[i]!),
      cpuRow(r.hubs, 'team', r.hooks),
    ]),
  ),
);
console.log();
console.log(
  table(
    [
      'hubs',
      'claim → other hubs p50 ms',
      'p99 ms',
      'n',
      'hook → other hubs p50 ms',
      'p99 ms',
      'n',
      'PG connections per hub',
      'outbox max',
    ],
    runs.map((r) => [
      r.hubs,
      fmt(r.latency.claims.p50),
      fmt(r.latency.claims.p99),
      r.latency.claims.n,
      fmt(r.latency.hooks.p50),
      fmt(r.latency.hooks.p99),
      r.latency.hooks.n,
      r.conns.join(' '),
      r.outboxMax,
    ]),
  ),
);
const bad = runs.filter((r) => r.claims.duplicates > 0 || r.claims.n !== TASKS);
if (bad.length > 0) {
  console.error(
    `bench:team: tasks handed out more than once or not at all at ${bad.map((r) => r.hubs).join(', ')} hubs`,
  );
  process.exitCode = 1;
}
