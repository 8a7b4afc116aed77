// runTool: the one path every call takes, from MCP or REST. Module gate → input validation (compiled
// TypeBox) → handler → ok()/fail(). No exception ever escapes: unexpected ones are logged with their
// stack under an error id, and the envelope quotes only the id.
import type { TObject } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { type Envelope, type ErrorCategory, fail, okWithText } from '../../shared/envelope/index.ts';
import { DAMAGED_REMEDY, isDamagedCode } from '../db/damage.ts';
import { attachedFiles, type Db } from '../db/open.ts';
import { newErrorId, ToolError } from '../errors.ts';
import { threadName } from '../logger.ts';
import type { ToolContext } from './context.ts';
import type { AnyTool } from './define.ts';
import './formats.ts';

export interface RunOptions {
  /** true on MCP (the 32 KB agent budget), false for the browser (REST). */
  applyBudget: boolean;
  ctx: ToolContext;
}

const checks = new WeakMap<TObject, TypeCheck<TObject>>();

// A tool's input checker is compiled on its first call (a millisecond or two), not up front: all 51
// at once cost more than the rest of the hub's start-up, and a CLI command needs none of them.
function checkerFor(schema: TObject): TypeCheck<TObject> {
  let check = checks.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    checks.set(schema, check);
  }
  return check;
}

const MAX_REPORTED_ERRORS = 5;

/** A validation message an agent can act on: which fields, what was expected. */
export function describeInputErrors(tool: AnyTool, input: unknown): string | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return `${tool.name} takes an object of named arguments`;
  }
  const check = checkerFor(tool.input);
  if (check.Check(input)) return undefined;
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const error of check.Errors(input)) {
    const where = error.path === '' ? '(arguments)' : error.path.slice(1).replaceAll('/', '.');
    if (seen.has(where)) continue;
    seen.add(where);
    parts.push(`${where}: ${error.message}`);
    if (parts.length === MAX_REPORTED_ERRORS) break;
  }
  const known = Object.keys(tool.input.properties);
  return `invalid arguments for ${tool.name}: ${parts.join('; ')}. Accepted arguments: ${known.join(', ') || 'none'}`;
}

interface Classified {
  category: ErrorCategory;
  message: string;
  retryable?: boolean;
}

const TRANSIENT_CODES = new Set([
  'ETIMEDOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'EAI_AGAIN',
  'EBUSY',
  'EMFILE',
  'ENFILE',
]);
const PERMISSION_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);

/** Maps an unexpected exception to a category. SQLite codes come from better-sqlite3's SqliteError. */
export function classify(err: unknown): Classified | undefined {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string') return undefined;
  if (
    code === 'SQLITE_BUSY' ||
    code.startsWith('SQLITE_BUSY_') ||
    code === 'SQLITE_LOCKED' ||
    code.startsWith('SQLITE_LOCKED_')
  ) {
    return {
      category: 'transient',
      message: 'the database is busy (locked by another writer); retry in a moment',
    };
  }
  if (
    code === 'SQLITE_READONLY' ||
    code.startsWith('SQLITE_READONLY_') ||
    code === 'SQLITE_PERM' ||
    code === 'SQLITE_AUTH'
  ) {
    return {
      category: 'permission',
      message: 'the hub database is read-only; make the state directory writable and retry',
    };
  }
  if (isDamagedCode(code)) {
    // A person must act before anything changes: retrying does not help.
    return {
      category: 'unavailable',
      retryable: false,
      message: `the hub database is damaged (${code}); changes are refused: stop the hub, ${DAMAGED_REMEDY}`,
    };
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return { category: 'unavailable', message: 'the disk is full; free some space and retry' };
  }
  if (code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_CANTOPEN_')) {
    return {
      category: 'unavailable',
      message: 'the hub database cannot be opened; check the state directory and retry',
    };
  }
  if (code === 'SQLITE_INTERRUPT' || code === 'ABORT_ERR')
    return { category: 'transient', message: 'the call was interrupted; retry' };
  if (TRANSIENT_CODES.has(code))
    return { category: 'transient', message: `a temporary failure (${code}); retry` };
  if (PERMISSION_CODES.has(code))
    return {
      category: 'permission',
      message: `the hub may not access a file it needs (${code}); check permissions`,
    };
  return undefined;
}

function isSqliteError(err: unknown): boolean {
  return (
    (err as { name?: unknown })?.name === 'SqliteError' ||
    String((err as { code?: unknown })?.code ?? '').startsWith('SQLITE_')
  );
}

function forensics(tool: string, err: unknown, ctx: ToolContext, db: Db): string {
  const errorId = newErrorId();
  const record: Record<string, unknown> = { tool, errorId, thread: threadName(), pid: process.pid, err };
  if (isSqliteError(err)) record.databases = attachedFiles(db);
  ctx.logger.error(record, `tool ${tool} failed`);
  return errorId;
}

/** Runs one tool call. Always resolves with an envelope. */
export async function runTool(tool: AnyTool, input: unknown, options: RunOptions): Promise<Envelope> {
  return (await execute(tool, input, options)).envelope;
}

export interface ToolAnswer {
  envelope: Envelope;
  /** Exactly JSON.stringify(envelope): what the MCP face sends. */
  text: string;
  /** The text's UTF-8 length, when ok() knew it without counting (plain ASCII). */
  bytes?: number | undefined;
}

/**
 * runTool and the envelope's JSON text. A successful answer small enough to be measured whole is
 * serialised once in all: the text is the serialisation ok() measured it with. Synchronous when the
 * tool's handler is (most are): a chain of promises costs a hot call more than its SQL.
 */
export function answerTool(
  tool: AnyTool,
  input: unknown,
  options: RunOptions,
): ToolAnswer | Promise<ToolAnswer> {
  const answer = execute(tool, input, options);
  return answer instanceof Promise ? answer.then(withText) : withText(answer);
}

type Answer = { envelope: Envelope; text?: string | undefined; textBytes?: number | undefined };

function withText({ envelope, text, textBytes }: Answer): ToolAnswer {
  return text === undefined
    ? { envelope, text: JSON.stringify(envelope) }
    : { envelope, text, bytes: textBytes };
}

/** The envelope, with its text when ok() had it anyway; a promise only when the handler returned one. */
function execute(tool: AnyTool, input: unknown, options: RunOptions): Answer | Promise<Answer> {
  const { ctx, applyBudget } = options;
  if (!ctx.modules.isEnabled(tool.module)) {
    return failed(
      'module_disabled',
      `${tool.name} belongs to the "${tool.module}" module, which is disabled in this project; run \`cos module enable ${tool.module}\` (or enable it under Settings in the hub) and retry`,
    );
  }
  const args = input ?? {};
  const invalid = describeInputErrors(tool, args);
  if (invalid) return failed('validation', invalid);
  // A change made to a hub.db that was deleted, replaced or damaged under the hub would be acknowledged
  // and then lost; reads go on (they serve what the hub still holds).
  if (tool.annotations?.readOnlyHint !== true) {
    const refused = ctx.services.status?.writesRefused();
    if (refused) return failed('unavailable', refused, { retryable: false });
  }
  let data: unknown;
  try {
    data = tool.handler(ctx, args);
  } catch (err) {
    return caught(tool, err, ctx);
  }
  if (isThenable(data)) {
    return Promise.resolve(data).then(
      (value) => settle(tool, value, ctx, applyBudget),
      (err: unknown) => caught(tool, err, ctx),
    );
  }
  return settle(tool, data, ctx, applyBudget);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** A handler's exception as an envelope: typed ones as they are, anything else logged under an id. */
function caught(tool: AnyTool, err: unknown, ctx: ToolContext): Answer {
  if (err instanceof ToolError) {
    return failed(err.category, err.message, err.retryable === undefined ? {} : { retryable: err.retryable });
  }
  const errorId = forensics(tool.name, err, ctx, ctx.db);
  const known = classify(err);
  const code = (err as { code?: unknown }).code;
  if (isDamagedCode(code)) ctx.services.status?.databaseDamaged(String(code));
  if (known)
    return failed(
      known.category,
      `${known.message} (error id ${errorId})`,
      known.retryable === undefined ? {} : { retryable: known.retryable },
    );
  return failed(
    'internal',
    `${tool.name} failed unexpectedly; the hub log has the details under error id ${errorId}`,
  );
}

/** The handler's data as a success envelope (trimmed to the budget when it applies). */
function settle(tool: AnyTool, data: unknown, ctx: ToolContext, applyBudget: boolean): Answer {
  try {
    const answer = okWithText(data, { meta: { layer: tool.layer }, applyBudget });
    if (isUnshrinkable(answer.envelope.data)) {
      ctx.logger.error(
        { tool: tool.name, thread: threadName() },
        `tool ${tool.name} returned an envelope that could not be shrunk to the agent budget`,
      );
    }
    return answer;
  } catch (err) {
    const errorId = forensics(tool.name, err, ctx, ctx.db);
    return failed(
      'internal',
      `${tool.name} produced an answer that could not be serialised; error id ${errorId}`,
    );
  }
}

function failed(...args: Parameters<typeof fail>): Answer {
  return { envelope: fail(...args) };
}

function isUnshrinkable(data: unknown): boolean {
  const meta = (data as { meta?: { envelope_unshrinkable?: unknown } } | null)?.meta;
  return meta?.envelope_unshrinkable === true;
}
