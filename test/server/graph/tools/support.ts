// A real hub over a fixture repository: its own state directory and database file, the graph indexed
// in-process (no worker: the tests pin answers, not the indexing thread), and runTool as the adapters
// call it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../../../server/config.ts';
import { Indexer } from '../../../../server/graph/indexer.ts';
import { createHub, type Hub } from '../../../../server/hub.ts';
import { catalog } from '../../../../server/tools/catalog.ts';
import { runTool } from '../../../../server/tools/run.ts';
import type { Envelope } from '../../../../shared/envelope/index.ts';

export const FIXTURES = fileURLToPath(new URL('../../../fixtures/graph/', import.meta.url));

export interface GraphHub {
  hub: Hub;
  repo: string;
  /** Calls a tool the way MCP does (agent budget on) unless `budget: false`. */
  call(name: string, input: unknown, options?: { budget?: boolean }): Promise<Envelope>;
  /** The data of a successful call; fails the test on an error envelope. */
  // biome-ignore lint/suspicious/noExplicitAny: tests drill into answers of many shapes
  data(name: string, input: unknown): Promise<any>;
  close(): Promise<void>;
}

export async function graphHub(repo: string, options: { index?: boolean } = {}): Promise<GraphHub> {
  const state = mkdtempSync(join(tmpdir(), 'cos-graph-tools-'));
  const config = loadConfig({ COS_REPO: repo, COS_STATE_DIR: state }, {}, repo);
  const hub = createHub(config, { withoutServices: true, logSync: true });
  if (options.index !== false) await new Indexer({ repo, db: hub.db }).run({});
  const call = (name: string, input: unknown, opts: { budget?: boolean } = {}) => {
    const tool = catalog.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    return runTool(tool, input, {
      applyBudget: opts.budget ?? true,
      ctx: hub.context({ transport: 'internal' }),
    });
  };
  return {
    hub,
    repo,
    call,
    async data(name, input) {
      const env = await call(name, input);
      if (!env.ok) throw new Error(`${name} failed: ${env.error.category}: ${env.error.message}`);
      return env.data;
    },
    async close() {
      await hub.close();
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** git in a test repository, as a fixed author (a commit needs one, and the machine may have none). */
export function gitIn(repo: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e',
    },
  }).trim();
}
