// The EvidenceBundle file: its shape, how it is read (a bundle that does not parse or fit is moved aside,
// never overwritten) and how it is written (temp file, fsync, rename, fsync of the directory, so a crash
// leaves either the old bundle or the new one, never half of one).
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Logger } from 'pino';
import '../tools/formats.ts';
import { newErrorId, ToolError } from '../errors.ts';
import { SESSION_ID_PATTERN } from '../memory/schemas.ts';

export const BUNDLE_VERSION = 1;

/** The codes of a directory the hub may not write: read-only, not ours, a read-only mount. */
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * A failure to write the agents directory as the `permission` error it is, saying what to do (the
 * directory named by its setting, never by its absolute path); undefined for any other failure.
 */
function notWritable(err: unknown, what: string): ToolError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !NOT_WRITABLE.has(code)) return undefined;
  return new ToolError(
    'permission',
    `${what}: the agents directory cannot be written (${code}); make it writable for the hub (or point COS_AGENT_DIR at a directory that is) and retry`,
    { cause: err },
  );
}

/** Rethrows `err`, as notWritable() says it when it is a directory the hub may not write. */
export function agentDirNotWritable(err: unknown, what: string): never {
  throw notWritable(err, what) ?? err;
}

const SESSION_ID = new RegExp(SESSION_ID_PATTERN);

export const OutputStatusSchema = Type.Union([
  Type.Literal('ok'),
  Type.Literal('fail'),
  Type.Literal('timeout'),
]);

export const SlotEntrySchema = Type.Object({
  seq: Type.Integer({ minimum: 1, description: 'Order of recording within the session' }),
  status: OutputStatusSchema,
  latency_ms: Type.Integer({ minimum: 0 }),
  recorded_at: Type.String({ format: 'date-time' }),
  output: Type.Record(Type.String(), Type.Unknown()),
});
export type SlotEntry = Static<typeof SlotEntrySchema>;

export const BacktrackSchema = Type.Object({
  seq: Type.Integer(),
  role: Type.String(),
  reason: Type.String(),
  to_role: Type.Union([Type.String(), Type.Null()]),
  at: Type.String({ format: 'date-time' }),
});

export const DiscoverySchema = Type.Object({
  seq: Type.Integer(),
  role: Type.String(),
  text: Type.String(),
  at: Type.String({ format: 'date-time' }),
});

export const DegradedSchema = Type.Object({
  seq: Type.Integer(),
  role: Type.String(),
  status: Type.Union([Type.Literal('fail'), Type.Literal('timeout')]),
  latency_ms: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
});

export const BundleSchema = Type.Object({
  version: Type.Literal(BUNDLE_VERSION),
  session_id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  /** Outputs recorded so far; the next one gets seq + 1. */
  seq: Type.Integer({ minimum: 0 }),
  slots: Type.Record(Type.String(), Type.Array(SlotEntrySchema), {
    description: 'One slot per role, outputs oldest first',
  }),
  backtracks: Type.Array(BacktrackSchema),
  discoveries: Type.Array(DiscoverySchema),
  degraded_formulas: Type.Array(DegradedSchema, { description: 'Role runs that failed or timed out' }),
});
export type Bundle = Static<typeof BundleSchema>;

/** Throws `validation` unless `id` is safe as part of a file name. */
export function checkSessionId(id: string): string {
  if (!SESSION_ID.test(id)) {
    throw new ToolError(
      'validation',
      'session_id may hold only letters, digits, "_", "-" and "." (not first), up to 128 characters',
    );
  }
  return id;
}

export function bundleFileName(session: string): string {
  return `evidence_bundle_${checkSessionId(session)}.json`;
}

export function emptyBundle(session: string, roles: string[], at: string): Bundle {
  return {
    version: BUNDLE_VERSION,
    session_id: session,
    created_at: at,
    updated_at: at,
    seq: 0,
    slots: Object.fromEntries(roles.map((r) => [r, []])),
    backtracks: [],
    discoveries: [],
    degraded_formulas: [],
  };
}

/**
 * The bundle at `file`, or null when there is none. A file that is not a valid bundle of this session is
 * renamed `<name>.corrupt-<timestamp>` and answered as `internal` with an error id the log also carries.
 */
export async function readBundle(file: string, session: string, logger?: Logger): Promise<Bundle | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let problem: string;
  try {
    const parsed: unknown = JSON.parse(text);
    if (Value.Check(BundleSchema, parsed) && parsed.session_id === session) return parsed;
    const first = [...Value.Errors(BundleSchema, parsed)][0];
    problem = first ? `${first.path || '/'}: ${first.message}` : 'belongs to another session';
  } catch (err) {
    problem = `not JSON: ${(err as Error).message}`;
  }
  // The same id format runTool gives unexpected failures, so one grep of the log finds either.
  const errorId = newErrorId();
  const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  let moved = true;
  let refused: ToolError | undefined;
  try {
    await rename(file, aside);
  } catch (err) {
    moved = false;
    refused = notWritable(
      err,
      `the evidence bundle of session ${session} is unreadable and could not be moved aside, so nothing was written over it (error id ${errorId})`,
    );
    logger?.error({ errorId, err, file }, 'corrupt evidence bundle could not be moved aside');
  }
  logger?.error({ errorId, file, aside, problem }, 'corrupt evidence bundle');
  if (refused) throw refused;
  throw new ToolError(
    'internal',
    moved
      ? `the evidence bundle of session ${session} was unreadable and was moved aside as ${basename(aside)}; ` +
          `the next recorded output starts a new bundle (error id ${errorId})`
      : `the evidence bundle of session ${session} is unreadable and could not be moved aside; ` +
          `nothing was written over it (error id ${errorId})`,
  );
}

export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  // Without this a crash right after rename could forget the new directory entry on some filesystems.
  try {
    const dir = await open(dirname(file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Directory fsync is unsupported on some platforms; the rename itself is still atomic.
  }
}

export const bundlePath = (agentDir: string, session: string) => join(agentDir, bundleFileName(session));
