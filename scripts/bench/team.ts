// npm run bench:team — a team's hubs on one PostgreSQL: N hub processes (`cos serve`, TEAM_HUBS, default
// "2,8": the run is repeated for each count, to show how the cost grows), each on its own clone of one
// bare origin with TEAM_TASKS (1,000) ready tasks, all pointed at one throwaway cluster started here.
//
//   claims   TEAM_AGENTS (16) agents per hub call claim-next until the board is empty: every task must be
//            handed out exactly once (duplicates 0, PostgreSQL's records checked too); p50/p99 per claim.
//   hooks    hook events at TEAM_HOOK_RATE (2,000) a second in all, spread over every hub's agents, for
//            TEAM_HOOK_SECONDS (10): the p99 of the hook round trip (target < 50 ms) and whether the rate
//            was sustained.
//   latency  from a claim or a hook event on one hub to its arrival on every other hub's event stream
//            (/api/stream/events): p50/p99 (target p99 < 1 s).
//   conns    connections each hub holds on PostgreSQL (pg_stat_activity, by application_name).
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HubProcess } from '../../test/support/hub-process.ts';
import { adminQuery, ownCluster } from '../../test/support/postgres.ts';
import { openSse, type SseClient } from '../../test/support/sse.ts';
import { startTeamHubProcess, teamRepos } from '../../test/support/team.ts';
import { fmt, summarize, table } from './lib.ts';

const HUB_COUNTS = (process.env.TEAM_HUBS ?? '2,8').split(',').map(Number);
const TASKS = Number(process.env.TEAM_TASKS ?? 1000);
const AGENTS = Number(process.env.TEAM_AGENTS ?? 16);
const HOOK_RATE = Number(process.env.TEAM_HOOK_RATE ?? 2000);
const HOOK_SECONDS = Number(process.env.TEAM_HOOK_SECONDS ?? 10);

function post(
  url: string,
  agent: Agent,
  body: unknown,
): Promise<{ ms: number; status: number; json: unknown }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (out += c));
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = JSON.parse(out);
          } catch {
            // Not JSON: the status says enough.
          }
          resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

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
  hooks: { sent: number; rate: number; p50: number; p99: number; failed: number };
  latency: {
    claims: { n: number; p50: number; p99: number };
    hooks: { n: number; p50: number; p99: number };
  };
  conns: number[];
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
        await startTeamHubProcess(repos.clones[i]!, url, `bench-${i}`, {
          COS_RECORD_CALLS: '1',
          COS_LOG_LEVEL: 'warn',
        }),
      );
    for (const h of hubs) streams.push(await openSse(`${h.url}/api/stream/events`));

    // Where each event was sent from and when: matched on the other hubs' streams.
    const claimSent = new Map<string, { hub: number; at: number }>();
    const hookSent = new Map<string, { hub: number; at: number }>();
    const claimLat: number[] = [];
    const hookLat: number[] = [];
    streams.forEach((s, j) => {
      s.response.on('data', () => {
        // openSse parses into s.events; read what arrived and forget it (a long run would grow it).
        const now = performance.now();
        for (const e of s.events.splice(0)) {
          const d = e.data as { task_id?: unknown; agent?: unknown; new_status?: unknown };
          if (e.event === 'task-updated' && typeof d.task_id === 'string' && d.new_status === 'in_progress') {
            const sent = claimSent.get(d.task_id);
            if (sent && sent.hub !== j) claimLat.push(now - sent.at);
          } else if (e.event === 'agent-event' && typeof d.agent === 'string') {
            const sent = hookSent.get(d.agent);
            if (sent && sent.hub !== j) hookLat.push(now - sent.at);
          }
        }
      });
    });

    // claims
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
    const duplicates = [...claimed.values()].filter((n) => n > 1).length;
    const pg = await adminQuery(
      url.replace(`/${dbName}`, `/${dbName}`),
      "SELECT count(*)::int AS n FROM team_tasks WHERE status = 'in_progress' AND agent_session IS NOT NULL",
    );
    const inPg = (pg.rows[0] as { n: number }).n;
    const claimStats = summarize(lat);

    // hooks
    const perHub = HOOK_RATE / hubCount;
    const perAgent = perHub / AGENTS;
    const interval = 1000 / perAgent;
    const hookLatencies: number[] = [];
    let hookFailed = 0;
    let sent = 0;
    let probe = 0;
    const h0 = performance.now();
    const deadline = h0 + HOOK_SECONDS * 1000;
    await Promise.all(
      hubs.flatMap((h, i) =>
        Array.from({ length: AGENTS }, async (_, a) => {
          const agent = new Agent({ keepAlive: true, maxSockets: 1 });
          await new Promise((r) => setTimeout(r, (a * interval) / AGENTS));
          let next = performance.now();
          let tick = 0;
          while (performance.now() < deadline) {
            tick++;
            // Every 20th event comes from an agent session of its own, so its arrival elsewhere can be timed.
            const session = tick % 20 === 0 ? `probe-${i}-${a}-${probe++}` : `hooks-${i}-${a}`;
            if (session.startsWith('probe-')) hookSent.set(session, { hub: i, at: performance.now() });
            const body = {
              session_id: session,
              hook_event_name: tick % 2 === 0 ? 'PostToolUse' : 'PreToolUse',
              tool_name: 'Edit',
              tool_input: {
                file_path: join(repos.clones[i]!, `src/f${a}.ts`),
                old_string: 'a',
                new_string: 'b',
              },
              tool_response: { filePath: join(repos.clones[i]!, `src/f${a}.ts`) },
              tool_use_id: `t${tick}`,
              cwd: repos.clones[i]!,
            };
            sent++;
            const res = await post(`${h.url}/api/hooks/events?client=claude-code`, agent, body).catch(
              () => null,
            );
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
    const hookWall = (performance.now() - h0) / 1000;
    // Let the last events travel before reading the latencies.
    await new Promise((r) => setTimeout(r, 2000));
    const hookStats = summarize(hookLatencies);

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
      hooks: { sent, rate: sent / hookWall, p50: hookStats.p50, p99: hookStats.p99, failed: hookFailed },
      latency: { claims: summarize(claimLat), hooks: summarize(hookLat) },
      conns: perHubConns,
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
try {
  for (const n of HUB_COUNTS) {
    process.stderr.write(`bench:team: ${n} hubs…\n`);
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
    ['hubs', 'hook events', 'events/s', 'hook p50 ms', 'hook p99 ms', 'failed'],
    runs.map((r) => [
      r.hubs,
      r.hooks.sent,
      fmt(r.hooks.rate, 0),
      fmt(r.hooks.p50),
      fmt(r.hooks.p99),
      r.hooks.failed,
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
