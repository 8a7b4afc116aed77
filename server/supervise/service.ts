// Supervision evidence: each role's output in a supervised run, kept per session in one JSON bundle under
// $COS_AGENT_DIR. Recording is read-modify-write of a whole file, so calls for one session run one after
// another on an in-process queue (a hub is one process; other processes must go through its tools).
import { readdir, stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { ToolError } from '../errors.ts';
import { makeDir } from '../fs/make-dir.ts';
import { KeyedQueue } from '../keyed-queue.ts';
import {
  agentDirNotWritable,
  type Bundle,
  bundlePath,
  checkSessionId,
  emptyBundle,
  readBundle,
  type SlotEntry,
  writeFileAtomic,
} from './bundle.ts';
import { createRoleRegistry, type RoleInfo } from './roles.ts';

declare module '../hub-services.ts' {
  interface HubServices {
    supervise: SuperviseService;
  }
}

export interface SuperviseServiceOptions {
  agentDir: string;
  stateDir: string;
  logger?: Logger;
  now?: () => number;
}

export interface RecordOutputInput {
  session_id: string;
  role: string;
  output: Record<string, unknown>;
  status: 'ok' | 'fail' | 'timeout';
  latency_ms: number;
  discoveries?: string[];
  backtrack?: { reason: string; to_role?: string };
}

export interface RecordOutputResult {
  session_id: string;
  role: string;
  seq: number;
  slot_size: number;
  counts: { outputs: number; backtracks: number; discoveries: number; degraded_formulas: number };
}

export interface RoleOutput extends SlotEntry {
  session_id: string;
}

/** A bundle file holding more than this is refused rather than grown without bound. */
export const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;
/** Role outputs are evidence, not artefacts: larger ones belong in a file the output points to. */
export const MAX_OUTPUT_BYTES = 256 * 1024;
/** How many recent bundles a cross-session listing reads. */
const MAX_BUNDLES_SCANNED = 200;

export function createSuperviseService(options: SuperviseServiceOptions) {
  const now = options.now ?? Date.now;
  const roles = createRoleRegistry(options.stateDir, options.logger);
  const queue = new KeyedQueue();
  let dirReady: Promise<unknown> | null = null;

  /** Runs `job` after every earlier job of the same session has settled. */
  const serialised = <T>(session: string, job: () => Promise<T>): Promise<T> => queue.run(session, job);

  const ensureDir = () => {
    dirReady ??= makeDir(options.agentDir).catch((err: unknown) => {
      dirReady = null;
      throw err;
    });
    return dirReady;
  };

  async function load(session: string): Promise<Bundle | null> {
    return readBundle(bundlePath(options.agentDir, session), session, options.logger);
  }

  return {
    roles: (): RoleInfo[] => roles.list(),

    recordOutput(input: RecordOutputInput): Promise<RecordOutputResult> {
      const session = checkSessionId(input.session_id);
      // Failed and timed-out runs record whatever they produced; only a successful output owes its schema.
      if (input.status === 'ok') roles.check(input.role, input.output);
      else if (!roles.has(input.role)) roles.check(input.role, input.output);
      const outputBytes = Buffer.byteLength(JSON.stringify(input.output));
      if (outputBytes > MAX_OUTPUT_BYTES) {
        throw new ToolError(
          'validation',
          `output is ${outputBytes} bytes; keep it under ${MAX_OUTPUT_BYTES} and point to larger artefacts by path`,
        );
      }
      const nothingRecorded = `nothing was recorded for session ${session}`;
      return serialised(session, async () => {
        await ensureDir().catch((err: unknown) => agentDirNotWritable(err, nothingRecorded));
        const at = new Date(now()).toISOString();
        const bundle = (await load(session)) ?? emptyBundle(session, roles.ids(), at);
        for (const r of roles.ids()) bundle.slots[r] ??= [];
        const seq = bundle.seq + 1;
        bundle.seq = seq;
        bundle.updated_at = at;
        bundle.slots[input.role] ??= [];
        const slot = bundle.slots[input.role]!;
        slot.push({
          seq,
          status: input.status,
          latency_ms: input.latency_ms,
          recorded_at: at,
          output: input.output,
        });
        for (const text of input.discoveries ?? [])
          bundle.discoveries.push({ seq, role: input.role, text, at });
        if (input.backtrack) {
          bundle.backtracks.push({
            seq,
            role: input.role,
            reason: input.backtrack.reason,
            to_role: input.backtrack.to_role ?? null,
            at,
          });
        }
        if (input.status !== 'ok') {
          bundle.degraded_formulas.push({
            seq,
            role: input.role,
            status: input.status,
            latency_ms: input.latency_ms,
            at,
          });
        }
        const text = `${JSON.stringify(bundle, null, 2)}\n`;
        if (Buffer.byteLength(text) > MAX_BUNDLE_BYTES) {
          throw new ToolError(
            'validation',
            `the evidence bundle of session ${session} would exceed ${MAX_BUNDLE_BYTES} bytes: start a new session id`,
          );
        }
        await writeFileAtomic(bundlePath(options.agentDir, session), text).catch((err: unknown) =>
          agentDirNotWritable(err, nothingRecorded),
        );
        return {
          session_id: session,
          role: input.role,
          seq,
          slot_size: slot.length,
          counts: {
            outputs: seq,
            backtracks: bundle.backtracks.length,
            discoveries: bundle.discoveries.length,
            degraded_formulas: bundle.degraded_formulas.length,
          },
        };
      });
    },

    /** The session's bundle; waits for queued writes of that session so it reads what they recorded. */
    bundle(sessionId: string): Promise<Bundle> {
      const session = checkSessionId(sessionId);
      return serialised(session, async () => {
        const bundle = await load(session);
        if (!bundle) {
          throw new ToolError(
            'not_found',
            `no evidence bundle for session ${session} yet: record an output with cos_supervise_record_output first`,
          );
        }
        return bundle;
      });
    },

    /** The role's outputs across the most recent bundles (or one session), newest first. */
    async roleOutputs(
      role: string,
      opts: { session_id?: string; limit?: number },
    ): Promise<{ outputs: RoleOutput[]; sessions_scanned: number; unreadable: number }> {
      if (!roles.has(role)) roles.check(role, {});
      const limit = opts.limit ?? 20;
      let files: { session: string; mtime: number }[];
      if (opts.session_id !== undefined) {
        files = [{ session: checkSessionId(opts.session_id), mtime: 0 }];
      } else {
        let names: string[] = [];
        try {
          names = await readdir(options.agentDir);
        } catch {
          names = [];
        }
        const found = await Promise.all(
          names
            .map((n) => /^evidence_bundle_(.+)\.json$/.exec(n)?.[1])
            .filter((s): s is string => s !== undefined)
            .map(async (session) => {
              try {
                return { session, mtime: (await stat(bundlePath(options.agentDir, session))).mtimeMs };
              } catch {
                return null;
              }
            }),
        );
        files = found
          .filter((f): f is { session: string; mtime: number } => f !== null)
          .sort((a, b) => b.mtime - a.mtime)
          .slice(0, MAX_BUNDLES_SCANNED);
      }
      const outputs: RoleOutput[] = [];
      let unreadable = 0;
      for (const f of files) {
        let bundle: Bundle | null;
        try {
          // Through the session's queue: never read a bundle between another call's read and write.
          bundle = await serialised(f.session, () => load(f.session));
        } catch (err) {
          if (opts.session_id !== undefined) throw err;
          // A listing reports the unreadable bundle (moved aside by load, with its error id in the log) and goes on.
          unreadable++;
          continue;
        }
        for (const e of bundle?.slots[role] ?? []) outputs.push({ session_id: f.session, ...e });
      }
      outputs.sort((a, b) => b.recorded_at.localeCompare(a.recorded_at) || b.seq - a.seq);
      return { outputs: outputs.slice(0, limit), sessions_scanned: files.length, unreadable };
    },
  };
}

export type SuperviseService = ReturnType<typeof createSuperviseService>;
