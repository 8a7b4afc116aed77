import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { Config } from '../config.ts';
import { DB_FILE_NAME, openDatabase } from '../db/open.ts';
import { EventBus } from '../events/bus.ts';
import type { IndexProgress } from '../graph/indexer.ts';
import { createGraphService } from '../graph/service.ts';

const BAR = 30;
const PHASES: IndexProgress['phase'][] = ['scan', 'extract', 'resolve', 'done'];

/** One line that redraws in place on a terminal, and a line per phase when the output is a log. */
function progressPrinter(out: NodeJS.WriteStream): { update(p: IndexProgress): void; end(): void } {
  let lastPhase = '';
  let lastDraw = 0;
  return {
    update(p) {
      if (!out.isTTY) {
        if (p.phase !== lastPhase && p.phase !== 'done') out.write(`${p.phase}…\n`);
        lastPhase = p.phase;
        return;
      }
      const now = Date.now();
      if (p.phase === lastPhase && now - lastDraw < 50 && p.done !== p.total) return;
      lastPhase = p.phase;
      lastDraw = now;
      // The four phases share the bar; extraction dominates the time of a cold index.
      const share = { scan: [0, 0.05], extract: [0.05, 0.85], resolve: [0.85, 1], done: [1, 1] }[p.phase];
      const within = p.total > 0 ? p.done / p.total : 0;
      const frac = Math.min(1, share[0]! + (share[1]! - share[0]!) * within);
      const filled = Math.round(frac * BAR);
      out.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${String(Math.round(frac * 100)).padStart(3)}%  ${p.phase.padEnd(8)} ${p.total > 0 ? `${p.done}/${p.total}` : ''}\x1b[K`,
      );
    },
    end() {
      if (out.isTTY && lastPhase) out.write('\n');
    },
  };
}

/** `cos index [--force] [path …]`: brings the code graph of the repository up to date and prints the figures. */
export async function indexCommand(config: Config, args: string[], force: boolean): Promise<number> {
  // The graph service alone, on the hub's database (migrated here as the hub would): not the whole hub,
  // whose other services and tools this command never uses and would only slow its start.
  mkdirSync(config.stateDir, { recursive: true });
  const dbPath = join(config.stateDir, DB_FILE_NAME);
  const db = openDatabase(dbPath, { busyTimeoutMs: config.dbBusyTimeoutMs });
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const graph = createGraphService({ config, db, dbPath, events: new EventBus(), logger });
  const bar = progressPrinter(process.stderr);
  try {
    const r = await graph.reindex({
      force,
      ...(args.length > 0 ? { paths: args.map((p) => p.replace(/^\.\//, '').replace(/\/+$/, '')) } : {}),
      onProgress: (p) => {
        if (PHASES.includes(p.phase)) bar.update(p);
      },
    });
    bar.end();
    process.stdout.write(
      `indexed ${config.repo}: ${r.filesSeen} files seen, ${r.filesChanged} extracted, ${r.filesDeleted} removed, ${r.filesFailed} with parse errors; ${r.nodes} nodes, ${r.edges} edges; generation ${r.generation} in ${(r.durationMs / 1000).toFixed(2)} s\n`,
    );
    return 0;
  } catch (err) {
    bar.end();
    process.stderr.write(`cos index: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await graph.close();
    db.close();
  }
}
