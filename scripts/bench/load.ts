// npm run bench:load — 32 MCP sessions mixing reads and writes against a real hub process for 60 s
// (LOAD_SESSIONS, LOAD_SECONDS). Targets: no failed call apart from the deliberately bad ones
// (validation), p99 under 100 ms, memory flat in the second half (growth under 10%), open file
// descriptors back to their starting level once the sessions close.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../lib/load.ts';
import { fmt, table } from './lib.ts';

const sessions = Number(process.env.LOAD_SESSIONS ?? 32);
const seconds = Number(process.env.LOAD_SECONDS ?? 60);
const repo = mkdtempSync(join(tmpdir(), 'cos-load-'));
mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
writeFileSync(join(repo, 'docs/guide.md'), '# Guide\n\n## Load\n\nA guide for the load test.\n');
writeFileSync(join(repo, 'index.ts'), 'export function load(): number {\n  return 1;\n}\n');

const nodeArgs = (process.env.LOAD_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const r = await runLoad({ repo, sessions, seconds, nodeArgs }).finally(() =>
  rmSync(repo, { recursive: true, force: true }),
);
const growth = (r.rssMb.end - r.rssMb.half) / r.rssMb.half;
console.log(`bench:load — ${sessions} sessions, ${seconds} s, Node ${process.version}\n`);
console.log(
  table(
    [
      'calls',
      'calls/s',
      'failed',
      'expected validation',
      'p50 ms',
      'p99 ms',
      'RSS start MB',
      'RSS half MB',
      'RSS end MB',
      'growth 2nd half',
      'fds before',
      'fds during',
      'fds after',
    ],
    [
      [
        r.calls,
        fmt(r.calls / seconds, 0),
        r.failed,
        r.expectedErrors,
        fmt(r.p50),
        fmt(r.p99),
        fmt(r.rssMb.start, 0),
        fmt(r.rssMb.half, 0),
        fmt(r.rssMb.end, 0),
        `${fmt(growth * 100, 1)}%`,
        r.fds.before,
        r.fds.during,
        r.fds.after,
      ],
    ],
  ),
);
console.log(
  `\nthe hub's CPU per call: ${fmt(r.cpuMsPerCall.process, 2)} ms (process), ${fmt(r.cpuMsPerCall.main, 2)} ms ` +
    `(main thread, busy ${fmt(r.mainThreadBusy * 100, 0)}% of the run)`,
);
console.log(
  `the main thread waited for a core (other processes had both) ${fmt(r.mainThreadWaitingForCpu * 100, 0)}% ` +
    `of the run and was blocked (system calls, SQLite locks) at least ${fmt(r.mainThreadBlocked * 100, 0)}%; ` +
    `this load generator used ${fmt(r.generatorBusy * 100, 0)}% of a core`,
);
const heapGrowth = (r.heapUsedMb.end - r.heapUsedMb.half) / r.heapUsedMb.half;
const rssMedianGrowth = (r.rssMedianMb.secondHalf - r.rssMedianMb.firstHalf) / r.rssMedianMb.firstHalf;
console.log(
  `RSS median per half: ${fmt(r.rssMedianMb.firstHalf, 0)} MB, then ${fmt(r.rssMedianMb.secondHalf, 0)} MB ` +
    `(${fmt(rssMedianGrowth * 100, 1)}%); the V8 heap's lowest sample per half (nearest a full collection): ` +
    `${fmt(r.heapUsedMb.half, 1)} MB, then ${fmt(r.heapUsedMb.end, 1)} MB (${fmt(heapGrowth * 100, 1)}%; ` +
    `${fmt(r.heapUsedMb.start, 1)} MB before the run)`,
);
console.log(
  `memory over the run (s: RSS MB / heap floor MB): ${r.memorySeries
    .map((m) => `${m.seconds}: ${fmt(m.rssMb, 0)}/${fmt(m.heapFloorMb, 0)}`)
    .join(', ')}`,
);
console.log(
  `\n${table(
    ['tool', 'calls', 'p50 ms', 'p99 ms'],
    Object.entries(r.latencyByTool)
      .sort(([, a], [, b]) => b.p99 - a.p99)
      .map(([tool, l]) => [tool, r.byTool[tool] ?? 0, fmt(l.p50), fmt(l.p99)]),
  )}`,
);
if (r.fdsLeft.length) console.log(`\ndescriptors open after but not before: ${r.fdsLeft.join(', ')}`);
if (r.failures.length) console.log(`\nfailures:\n${r.failures.join('\n')}`);
const ok = r.failed === 0 && r.p99 < 100 && growth < 0.1 && r.fds.after <= r.fds.before + 2;
console.log(`\n${ok ? 'all targets met' : 'TARGETS MISSED'}`);
process.exitCode = ok ? 0 : 1;
