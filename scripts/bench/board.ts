// Board bench: creates 10,000 tasks through the service (file + index, as an agent would), then times the
// board page, search and claim-next. Real files in a temp directory, a real SQLite file.
// Usage: node --import tsx scripts/bench/board.ts [--tasks 10000] [--no-dir-fsync]
//   Every write fsyncs the file before the rename and the directory after it, as the hub does;
//   --no-dir-fsync skips the directory fsync to show what it costs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
// No WIP caps: the bench measures the work, not refusals.
writeFileSync(
  join(config.stateDir, 'board.json'),
  JSON.stringify({ wip: { in_progress: null, testing: null, emergency: null } }),
);
board.start();

const WORDS = [
  'parser',
  'index',
  'cursor',
  'budget',
  'watcher',
  'sqlite',
  'graph',
  'search',
  'agent',
  'claim',
  'review',
  'render',
  'schema',
  'router',
  'session',
  'token',
];
const word = (i: number) => WORDS[i % WORDS.length] ?? 'task';

interface Figures {
  n: number;
  p50: number;
  p99: number;
  perSecond: number;
}

function time(n: number, fn: (i: number) => unknown): Figures {
  const samples: number[] = [];
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn(i);
    samples.push(performance.now() - t0);
  }
  const total = performance.now() - start;
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
  return { n, p50: at(0.5), p99: at(0.99), perSecond: (n / total) * 1000 };
}

const fmt = (f: Figures) =>
  `n=${f.n}  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms  ${Math.round(f.perSecond).toLocaleString('en')}/s`;

const actor = { source: 'api' as const };
const create = time(TASKS, (i) =>
  board.create(
    {
      title: `${word(i)} ${word(i * 7 + 3)} ${word(i * 13 + 5)} work item ${i}`,
      kind: 'feature',
      priority: PRIORITIES[i % 4],
      ready: i % 2 === 0,
      swimlane: i % 3 === 0 ? 'web' : 'hub',
      outcome: `The ${word(i * 3)} handles the ${word(i * 5 + 1)} and the ${word(i * 11 + 2)} case ${i}.`,
      acceptance: `Given a ${word(i + 4)}\nWhen the ${word(i + 9)} runs\nThen it works`,
    },
    actor,
  ),
);
// Spread the board over the columns with real moves (file + index), so every column has cards.
const PATHS: Status[][] = [
  [],
  ['emergency'],
  ['in_progress'],
  ['in_progress', 'testing'],
  ['in_progress', 'blocked'],
  ['in_progress', 'complete'],
  ['archive'],
];
const move = time(TASKS, (i) => {
  for (const to of PATHS[i % PATHS.length] ?? []) board.move(`TASK-${i + 1}`, to, {}, actor);
});

const ctx: ToolContext = {
  config,
  db,
  logger,
  services: { board } as Partial<HubServices> as HubServices,
  modules: ModuleState.forStateDir(config.stateDir),
  events,
  caller: { transport: 'mcp' },
  signal: new AbortController().signal,
  progress: () => {},
};

const boardPage = time(300, () => board.board());
const boardFiltered = time(300, (i) => board.board({ label: 'ready', swimlane: i % 2 ? 'web' : 'hub' }));
let cursor: string | undefined;
const boardCursor = time(300, () => {
  const page = board.board({ limit: 50, ...(cursor ? { cursor } : {}) });
  cursor = page.next_cursor ?? undefined;
});
let mcpSize = 0;
const boardMcp = { value: null as Figures | null };
const mcpSamples: number[] = [];
for (let i = 0; i < 100; i++) {
  const t0 = performance.now();
  const env = await runTool(taskBoardTool, { limit: 500 }, { applyBudget: true, ctx });
  mcpSamples.push(performance.now() - t0);
  mcpSize = JSON.stringify(env).length;
}
mcpSamples.sort((a, b) => a - b);
boardMcp.value = {
  n: 100,
  p50: mcpSamples[50] ?? 0,
  p99: mcpSamples[99] ?? 0,
  perSecond: 100 / (mcpSamples.reduce((a, b) => a + b, 0) / 1000),
};

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
const search = time(2000, (i) => board.search(queries[i % queries.length] ?? 'parser', { limit: 20 }));

// Only as many claims as there are ready tasks: an empty queue answers in microseconds and would flatter p50.
const claimable = Math.min(1000, board.ready().total);
const claim = time(claimable, (i) => board.claimNext({ source: 'mcp', agentSession: `agent-${i % 16}` }));

board.close();
db.close();
rmSync(repo, { recursive: true, force: true });

console.log(
  `board bench: ${TASKS.toLocaleString('en')} tasks, node ${process.version}, directory fsync ${values['no-dir-fsync'] ? 'off' : 'on'}`,
);
console.log(`create (file + index)        ${fmt(create)}`);
console.log(`moves (0–2 per task)          ${fmt(move)}`);
console.log(`board page (all columns, 20) ${fmt(boardPage)}`);
console.log(`board page, label+swimlane   ${fmt(boardFiltered)}`);
console.log(`board page via cursor (50)   ${fmt(boardCursor)}`);
console.log(
  `cos_task_board over runTool  ${fmt(boardMcp.value)}  (envelope ${mcpSize.toLocaleString('en')} chars)`,
);
console.log(`search (bm25 + snippet)      ${fmt(search)}`);
console.log(`claim-next (file + index)    ${fmt(claim)}`);
