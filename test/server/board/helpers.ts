// Real parts for board tests: a temp repository, a real SQLite file, the real service and event bus.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pino from 'pino';
import {
  type BoardService,
  type BoardServiceOptions,
  createBoardService,
} from '../../../server/board/service.ts';
import { contentHash, parseTaskFile } from '../../../server/board/task-file.ts';
import { type Config, loadConfig } from '../../../server/config.ts';
import { type Db, openDatabase } from '../../../server/db/open.ts';
import { EventBus, type HubEvent } from '../../../server/events/bus.ts';
import { ModuleState } from '../../../server/modules.ts';
import { TeamDatabase } from '../../../server/team/database.ts';
import { Team } from '../../../server/team/team.ts';
import { databaseTarget } from '../../../server/team/url.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import type { HubServices, ToolContext } from '../../../server/tools/context.ts';
import { connectClient, type TestHub as FullHub, startTestHub } from '../../support/hub.ts';
import { teamDatabaseUrl } from '../../support/postgres.ts';

export const silent = pino({ level: 'silent' });

/**
 * COS_TEST_BOARD_STORE=postgres (test/server/team/board-on-postgres.test.ts sets it): every board these
 * tests open is in a team on a real PostgreSQL, one database for the file, one team per repository, so
 * the same tests check the board whose claims and moves go through the team's records first.
 */
export const boardStore = process.env.COS_TEST_BOARD_STORE === 'postgres' ? 'postgres' : 'sqlite';
const teamDatabase: Promise<TeamDatabase> | undefined =
  boardStore === 'postgres'
    ? teamDatabaseUrl().then(async (d) => {
        const db = new TeamDatabase(databaseTarget(d.url));
        await db.open();
        return db;
      })
    : undefined;
const teamDb = teamDatabase === undefined ? undefined : await teamDatabase;

export interface TestHub {
  repo: string;
  config: Config;
  dbPath: string;
  db: Db;
  events: EventBus;
  received: HubEvent[];
  board: BoardService;
  tasksDir: string;
  close(): void;
}

export function tempRepo(prefix = 'cos-board-'): string {
  const repo = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(repo, '.cos'), { recursive: true });
  mkdirSync(join(repo, 'docs', 'tasks'), { recursive: true });
  return repo;
}

export function writeBoardJson(repo: string, value: unknown): void {
  writeFileSync(join(repo, '.cos', 'board.json'), JSON.stringify(value));
}

/** Opens a hub's board on `repo` (a new temp repo by default); start() is called unless told not to. */
export function openHub(
  options: { repo?: string; start?: boolean } & Partial<
    Omit<BoardServiceOptions, 'config' | 'db' | 'events' | 'logger'>
  > = {},
): TestHub {
  const repo = options.repo ?? tempRepo();
  const config = loadConfig({ COS_REPO: repo }, {}, repo);
  const dbPath = join(config.stateDir, 'hub.db');
  const db = openDatabase(dbPath);
  const events = new EventBus(100_000);
  const received: HubEvent[] = [];
  events.subscribe((e) => received.push(e));
  const team = teamDb ? new Team(teamDb, `board-test:${repo}`, 'machine-test', repo, silent) : undefined;
  const board = createBoardService({
    config,
    db,
    events,
    team,
    logger: silent,
    watch: options.watch ?? false,
    debounceMs: options.debounceMs ?? 30,
    rescanMs: options.rescanMs ?? 0,
    durable: options.durable ?? false,
  });
  if (options.start !== false) {
    board.start();
    // A board reopened on a repository reads the team's records of it (resolves at once on a new one).
    void board.joinTeam();
  }
  return {
    repo,
    config,
    dbPath,
    db,
    events,
    received,
    board,
    tasksDir: config.tasksDir,
    close() {
      board.close();
      db.close();
      void team?.close();
    },
  };
}

export function removeRepo(repo: string): void {
  rmSync(repo, { recursive: true, force: true });
}

export const api = { source: 'api' as const };
export const agent = (name: string) => ({ source: 'mcp' as const, agentSession: name });

export function makeCtx(
  hub: TestHub,
  transport: 'mcp' | 'rest' | 'internal' = 'mcp',
  mcpSessionId?: string,
): ToolContext {
  return {
    config: hub.config,
    db: hub.db,
    logger: silent,
    // Only the board: these tests exercise no other service.
    services: { board: hub.board } as Partial<HubServices> as HubServices,
    modules: ModuleState.forStateDir(hub.config.stateDir),
    events: hub.events,
    caller: { transport, ...(mcpSessionId ? { mcpSessionId } : {}) },
    signal: new AbortController().signal,
    progress: () => {},
  };
}

export function taskFiles(hub: TestHub): string[] {
  return readdirSync(hub.tasksDir)
    .filter((n) => n.startsWith('TASK-') && n.endsWith('.md'))
    .sort();
}

export function readTask(hub: TestHub, name: string): string {
  return readFileSync(join(hub.tasksDir, name), 'utf8');
}

/** Files and index agree: every parseable file is indexed with its hash, and every row has its file. */
export function disagreements(hub: TestHub): string[] {
  const problems: string[] = [];
  const rows = new Map(hub.board.store.files().map((r) => [r.path, r]));
  const errors = new Set(hub.board.store.parseErrors().map((e) => e.path));
  for (const name of taskFiles(hub)) {
    const text = readTask(hub, name);
    const row = rows.get(name);
    rows.delete(name);
    const parsed = parseTaskFile(text, name);
    if (!parsed.ok) {
      if (!errors.has(name)) problems.push(`${name} does not parse and is not reported`);
      continue;
    }
    if (row === undefined) problems.push(`${name} is not indexed`);
    else if (row.content_hash !== contentHash(text)) problems.push(`${name} is indexed with a stale hash`);
    else {
      const indexed = hub.board.store.get(row.id);
      if (indexed?.status !== parsed.doc.fields.status || indexed.version !== parsed.doc.fields.version)
        problems.push(`${name} status/version differ between file and index`);
    }
  }
  for (const path of rows.keys()) problems.push(`${path} is indexed but has no file`);
  return problems;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds (the watcher is asynchronous), or fails after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(20);
  }
}

const WORKER = fileURLToPath(new URL('../../fixtures/board/agent-worker.ts', import.meta.url));

export interface WorkerReport {
  created: string[];
  claims: { agent: string; id: string }[];
  writes: Record<string, number>;
  tokens: { id: string; token: string }[];
  errors: Record<string, number>;
  internal: string[];
  ops: number;
}

/** Runs the agent worker in its own process (its own SQLite connection) and returns its report. */
export function runWorker(
  repo: string,
  mode: string,
  agents: string[],
  amount: number,
): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', WORKER, repo, mode, agents.join(','), String(amount)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`worker exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as WorkerReport);
    });
  });
}

/**
 * The real hub (every tool, a real port, an MCP client connected) with the board service attached the
 * way services.ts attaches it, on task files that `fill` writes into the tasks directory first.
 */
export async function startBoardHub(
  fill: (tasksDir: string) => void,
): Promise<{ t: FullHub; client: Client; close(): Promise<void> }> {
  const t = await startTestHub({ tools: catalog, withoutServices: true, listen: true });
  mkdirSync(t.config.tasksDir, { recursive: true });
  fill(t.config.tasksDir);
  const team = teamDb ? new Team(teamDb, `board-test:${t.dir}`, 'machine-test', t.dir, silent) : undefined;
  const board = createBoardService({
    config: t.config,
    db: t.hub.db,
    events: t.hub.events,
    logger: t.hub.logger,
    watch: false,
    team,
  });
  board.start();
  await board.joinTeam();
  t.hub.services.board = board;
  const client = await connectClient(t.url);
  return {
    t,
    client,
    async close() {
      await client.close();
      board.close();
      await team?.close();
      await t.close();
    },
  };
}
