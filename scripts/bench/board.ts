// Board bench: creates 10,000 tasks through the service (file + index, as an agent would), spreads them
// over the columns with real moves, then times the board page, search and claim-next. Real files in a
// temp directory and a real SQLite file; every write fsyncs the file and its directory, as the hub does.
// Writes are timed one at a time and 32 at once, with the time each kept the event loop busy.
// Usage: npm run bench:board -- [--tasks 10000] [--no-dir-fsync]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { PRIORITIES, type Status } from '../../server/board/model.ts';
import { createBoardService } from '../../server/board/service.ts';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/open.ts';
import { EventBus } from '../../server/events/bus.ts';
import { ModuleState } from '../../server/modules.ts';
import { taskBoardTool } from '../../server/tools/board/board.ts';
import type { HubServices, ToolContext } from '../../server/tools/context.ts';
import { runTool } from '../../server/tools/run.ts';
import { fmt, summarize, table } from './lib.ts';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '10000' },
    'no-dir-fsync': { type: 'boolean', default: false },
  },
});
const TASKS = Number(values.tasks);

const repo = mkdtempSync(join(tmpdir(), 'cos-bench-board-'));
mkdirSync(join(repo, '.cos'), { recursive: true });
const config = loadConfig({ COS_REPO: repo }, {}, repo);
// No WIP caps: the bench measures the work, not refusals.
writeFileSync(
  join(config.stateDir, 'board.json'),
  JSON.stringify({ wip: { in_progress: null, testing: null, emergency: null } }),
);
const db = openDatabase(join(config.stateDir, 'hub.db'));
const events = new EventBus();
const logger = pino({ level: 'silent' });
const board = createBoardService({
  config,
  db,
  events,
  logger,
  watch: false,
  durable: !values['no-dir-fsync'],
});
board.start();

const WORDS =
  'parser index cursor budget watcher sqlite graph search agent claim review render schema router session token'.split(
    ' ',
  );
const word = (i: number) => WORDS[i % WORDS.length] ?? 'task';

const rows: (string | number)[][] = [];

/**
 * Times `n` calls of `fn`, `concurrency` in flight at once, and how long they kept the event loop busy
 * per call (performance.eventLoopUtilization: running JavaScript or blocked in a synchronous system
 * call such as fsyncSync, as opposed to waiting for I/O). In the hub, every other call waits that long.
 */
async function measure(name: string, n: number, fn: (i: number) => unknown, concurrency = 1): Promise<void> {
  const samples: number[] = [];
  const loopBefore = performance.eventLoopUtilization();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        // As in the hub, where each call arrives as I/O: the loop turns (and timers fire) between calls.
        await new Promise((r) => setImmediate(r));
        const t0 = performance.now();
        await fn(i);
        samples.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const loop = performance.eventLoopUtilization(loopBefore);
  const s = summarize(samples);
  rows.push([
    name,
    s.n,
    concurrency,
    fmt(s.p50),
    fmt(s.p99),
    Math.round(s.n / seconds),
    fmt(loop.active / s.n, 2),
  ]);
}

const actor = { source: 'api' as const };
await measure('create (file + index)', TASKS, (i) =>
  board.create(
    {
      title: `${word(i)} ${word(i * 7 + 3)} ${word(i * 13 + 5)} work item ${i}`,
      priority: PRIORITIES[i % 4],
      ready: i % 2 === 0,
      swimlane: i % 3 === 0 ? 'web' : 'hub',
      outcome: `The ${word(i * 3)} handles the ${word(i * 5 + 1)} and the ${word(i * 11 + 2)} case ${i}.`,
      acceptance: `Given a ${word(i + 4)}\nWhen the ${word(i + 9)} runs\nThen it works`,
    },
    actor,
  ),
);

// Spread the board over the columns with real moves, so every column has cards.
const PATHS: Status[][] = [
  [],
  ['emergency'],
  ['in_progress'],
  ['in_progress', 'testing'],
  ['in_progress', 'blocked'],
  ['in_progress', 'complete'],
  ['archive'],
];
await measure('move a task along (0–2 moves)', TASKS, async (i) => {
  for (const to of PATHS[i % PATHS.length] ?? []) await board.move(`TASK-${i + 1}`, to, {}, actor);
});

// What 32 agents writing at once see: writes overlap their fsyncs, and share the directory's.
const CONCURRENT = Math.min(2000, TASKS);
await measure(
  'create, 32 at once',
  CONCURRENT,
  (i) => board.create({ title: `concurrent ${word(i)} ${i}`, ready: false }, actor),
  32,
);
await measure(
  'work-log append, 32 at once (32 tasks)',
  CONCURRENT,
  (i) => board.appendWorkLog(`TASK-${TASKS + 1 + (i % 32)}`, `step ${i}`, {}, actor),
  32,
);

await measure('board page (6 columns × 20)', 300, () => board.board());
await measure('board page, label + swimlane', 300, (i) =>
  board.board({ label: 'ready', swimlane: i % 2 ? 'web' : 'hub' }),
);
let cursor: string | undefined;
await measure('board page via next_cursor (50)', 300, () => {
  const page = board.board({ limit: 50, ...(cursor ? { cursor } : {}) });
  cursor = page.next_cursor ?? undefined;
});

const ctx: ToolContext = {
  config,
  db,
  logger,
  // Only the board: the bench exercises no other service.
  services: { board } as Partial<HubServices> as HubServices,
  modules: ModuleState.forStateDir(config.stateDir),
  events,
  caller: { transport: 'mcp' },
  signal: new AbortController().signal,
  progress: () => {},
};
let envelopeChars = 0;
await measure('cos_task_board via runTool (MCP budget)', 200, async () => {
  envelopeChars = JSON.stringify(
    await runTool(taskBoardTool, { limit: 500 }, { applyBudget: true, ctx }),
  ).length;
});

const queries = [
  'parser',
  'watcher budget',
  'sqlite index cursor',
  'agent',
  'render schema',
  'work item 4242',
  'sess',
  'token router',
];
await measure('search (bm25 + snippet, 20)', 2000, (i) =>
  board.search(queries[i % queries.length] ?? 'parser', { limit: 20 }),
);

// Only as many claims as there are ready tasks: an empty queue answers in microseconds and would flatter p50.
const claimable = Math.min(1000, board.ready().total);
await measure('claim-next (file + index)', claimable, (i) =>
  board.claimNext({ source: 'mcp', agentSession: `agent-${i % 16}` }),
);

board.close();
db.close();
rmSync(repo, { recursive: true, force: true });

console.log(
  `board bench: ${TASKS.toLocaleString('en')} tasks, node ${process.version}, ${cpus().length} cores, ` +
    `load ${loadavg()[0]?.toFixed(1)}, directory fsync ${values['no-dir-fsync'] ? 'off' : 'on'}; ` +
    `cos_task_board envelope ${envelopeChars.toLocaleString('en')} chars`,
);
console.log(
  table(['operation', 'n', 'in flight', 'p50 ms', 'p99 ms', 'per second', 'event loop busy ms/call'], rows),
);
