// A real ToolContext over a temp directory and a real SQLite file, for calling tool handlers directly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import pino from 'pino';
import { loadConfig } from '../../../server/config.ts';
import { type Db, openDatabase } from '../../../server/db/open.ts';
import { ToolError } from '../../../server/errors.ts';
import { EventBus } from '../../../server/events/bus.ts';
import { ModuleState } from '../../../server/modules.ts';
import type { HubServices, ToolContext } from '../../../server/tools/context.ts';
import type { AnyTool } from '../../../server/tools/define.ts';
import { runTool } from '../../../server/tools/run.ts';

export interface TestHub {
  dir: string;
  repo: string;
  db: Db;
  ctx: ToolContext;
  /**
   * Calls a tool through runTool (module gate, input validation, envelope with the agent budget) and checks
   * `data` against the tool's output schema. An error envelope is thrown back as a ToolError, so tests can
   * assert its category and message.
   */
  call: <T = unknown>(tool: AnyTool, input: Record<string, unknown>) => Promise<T>;
  cleanup: () => void;
}

export function makeTestHub(
  makeServices: (base: {
    db: Db;
    dir: string;
    repo: string;
    ctx: Omit<ToolContext, 'services'>;
  }) => Partial<HubServices>,
  options: { mcpSessionId?: string; repo?: string } = {},
): TestHub {
  const dir = mkdtempSync(join(tmpdir(), 'cos-test-'));
  const repo = options.repo ?? join(dir, 'repo');
  const config = loadConfig({ COS_REPO: repo, COS_STATE_DIR: join(dir, 'state') }, {}, dir);
  const db = openDatabase(join(dir, 'hub.db'));
  const base = {
    config,
    db,
    logger: pino({ level: 'silent' }),
    events: new EventBus(),
    modules: ModuleState.forStateDir(config.stateDir),
    caller: {
      transport: 'internal' as const,
      ...(options.mcpSessionId ? { mcpSessionId: options.mcpSessionId } : {}),
    },
    signal: new AbortController().signal,
    progress: () => {},
  };
  const ctx = { ...base, services: {} as HubServices };
  Object.assign(ctx.services, makeServices({ db, dir, repo, ctx: base }));
  return {
    dir,
    repo,
    db,
    ctx,
    call: async <T>(tool: AnyTool, input: Record<string, unknown>) => {
      const envelope = await runTool(tool, input, { ctx, applyBudget: true });
      if (!envelope.ok) {
        throw new ToolError(envelope.error.category as ToolError['category'], envelope.error.message, {
          retryable: envelope.error.retryable,
        });
      }
      const data: unknown = envelope.data;
      if (!Value.Check(tool.output, data)) {
        const first = [...Value.Errors(tool.output, data)][0];
        throw new Error(
          `${tool.name} answered outside its output schema at ${first?.path}: ${first?.message}`,
        );
      }
      return data as T;
    },
    cleanup: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
