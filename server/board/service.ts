// The board service: task files are the truth, the SQLite index serves queries. This file only puts the
// parts together; each has one reason to change:
//   write-path.ts   the durable write path (file first, then the index, in one re-checked transaction)
//   reconcile.ts    the index following the files (one file, or the whole directory), loading a task
//   watch.ts        watching the directory and the periodic safety-net rescans
//   edits.ts        creating a task, editing its fields and sections, appending to its work log
//   transitions.ts  moves between columns and the gates a task passes to enter one
//   wip.ts          WIP caps: the gate and the report
//   claims.ts       claim-next, which task a session holds, and releasing a dead claim (reclaim)
//   reads.ts        the board, one task, the ready queue, history, dependencies, configuration
//   search.ts       full-text task search
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import type { Team } from '../team/team.ts';
import { boardSettingsLoader } from './board-config.ts';
import { createClaims } from './claims.ts';
import { createEdits } from './edits.ts';
import { FileWriter } from './file-writer.ts';
import { createQualityGates } from './quality-gates.ts';
import { createReads } from './reads.ts';
import { createReconciler, type ReconcileReport } from './reconcile.ts';
import { createSearch } from './search.ts';
import { type BoardStore, createBoardStore } from './store.ts';
import { parseCache } from './task-file.ts';
import { taskKeys } from './task-keys.ts';
import { openTasksDir } from './tasks-dir.ts';
import { createTeamBoard } from './team-board.ts';
import { createTransitions } from './transitions.ts';
import { createWatcher } from './watch.ts';
import { createWip } from './wip.ts';
import { createWritePath, type TaskChangeFn, taskQueueKey } from './write-path.ts';

export interface BoardServiceOptions {
  config: Config;
  db: Db;
  events: EventBus;
  logger: Logger;
  /** Watch the tasks directory after start() (default true). */
  watch?: boolean;
  /** Quiet period before changed files are re-read (default 100 ms). */
  debounceMs?: number;
  /** Full re-scan interval as a safety net for missed watch events (default 60 s; 0 turns it off). */
  rescanMs?: number;
  /** fsync the directory after each rename (default true; benches and tests may turn it off). */
  durable?: boolean;
  /** Start the file writer's thread with start() (default true); false: with the first write. */
  threadsAtStart?: boolean;
  /** How many commits name a task (its board key): the definition of done's commit gate asks it. */
  linkedCommits?: (key: string) => Promise<number>;
  /** The team on PostgreSQL (COS_DATABASE_URL): claims and moves go through its records first. */
  team?: Team | undefined;
}

export type BoardService = ReturnType<typeof createBoardService>;

declare module '../hub-services.ts' {
  interface HubServices {
    board: BoardService;
  }
}

export function createBoardService(options: BoardServiceOptions) {
  const { config, db, events, logger, linkedCommits } = options;
  const log = logger.child({ module: 'board' });
  const store: BoardStore = createBoardStore(db);
  const dir = openTasksDir(config.repo, config.tasksDir, log);
  const settings = boardSettingsLoader(config.stateDir);
  /** Writes and fsyncs temp files off the main thread (and fsyncs the directory after the installs). */
  const files = new FileWriter(dir.path, { syncDir: options.durable ?? true });
  const parseTask = parseCache();

  const writes = createWritePath({
    db,
    events,
    store,
    files,
    tasksDir: dir.path,
    parseTask,
    machine: options.team?.machine,
  });
  // In a team every change of a task's state is the team record's first (team-board.ts); alone, the
  // durable write path is all there is, exactly as before.
  const team = options.team
    ? createTeamBoard({ team: options.team, store, writes, log: log.child({ scope: 'team-board' }) })
    : undefined;
  store.setOverlay(team?.overlay);
  const change: TaskChangeFn = team
    ? (id, step, actor) => team.change(id, step, actor.source)
    : (id, step) => writes.durableChange(taskQueueKey(id), step);
  const reconciler = createReconciler({ store, dir, writes, parseTask, log });
  const watcher = createWatcher({
    dir,
    reconciler,
    writes,
    log,
    debounceMs: options.debounceMs ?? 100,
    rescanMs: options.rescanMs ?? 60_000,
  });
  const wip = createWip({ store, settings, log });
  const edits = createEdits({ store, dir, writes, reconciler, wip, parseTask, change, team });
  const quality = createQualityGates({ store, settings: () => settings().gates, log });
  const transitions = createTransitions({
    dir,
    writes,
    change,
    reconciler,
    wip,
    quality,
    linkedCommits: linkedCommits && ((id: number) => linkedCommits(store.keyOf(id))),
    gateSettings: () => settings().gates,
  });
  const claims = createClaims({ store, dir, writes, change, team, reconciler, transitions, quality });
  const reads = createReads({ repo: config.repo, store, dir, settings, writes, reconciler, wip, parseTask });

  return {
    start(): ReconcileReport {
      if (options.threadsAtStart !== false) files.start();
      // A hub that ran in a team and starts alone shows its files again, not the team's last records.
      if (team === undefined && store.teamRows().length > 0) writes.write(() => store.clearTeam());
      const report = reconciler.reconcile();
      if (options.watch !== false) watcher.start();
      return report;
    },
    /**
     * In a team: reads the team's records and shows them over the files. Resolves after the first try
     * (a database away at start is retried in the background); nothing to do without a team.
     */
    async joinTeam(): Promise<void> {
      await team?.load();
    },
    close(): void {
      team?.close();
      files.close();
      watcher.close();
    },
    /** Lets the file writer's thread go while nobody uses the board (the watcher stays). */
    releaseThreads(): boolean {
      return files.letGo();
    },
    reconcile: reconciler.reconcile,
    flushWatcher: watcher.flush,
    board: reads.board,
    show: reads.show,
    create: edits.create,
    move: transitions.move,
    edit: edits.edit,
    appendWorkLog: edits.appendWorkLog,
    claimNext: claims.claimNext,
    ready: reads.ready,
    history: reads.history,
    search: createSearch({ store, dir, db, budgetMs: config.searchBudgetMs }),
    dependencies: reads.dependencies,
    dependents: reads.dependents,
    wipCheck: wip.check,
    config: reads.config,
    claimedBy: claims.claimedBy,
    inProgress: claims.inProgress,
    release: claims.release,
    handoff: claims.handoff,
    parseErrors: reads.parseErrors,
    settings,
    store,
    /** The board's side of the team (absent without one): its records, for tests and diagnostics. */
    team,
    /** A number or any spelling of an id → the task's key as its file writes it (task-keys.ts). */
    keys: taskKeys(db),
    /** Repo-relative path of a file in the tasks directory (for messages). */
    repoPath: dir.repoPath,
  };
}
