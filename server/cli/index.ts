import pino from 'pino';
import type { Config } from '../config.ts';
import type { IndexProgress } from '../graph/indexer.ts';
import { createHub } from '../hub.ts';

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
  const hub = createHub(config, { logger: pino({ level: 'warn' }, pino.destination(2)) });
  const bar = progressPrinter(process.stderr);
  try {
    const graph = hub.services.graph;
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
    await hub.close();
  }
}
