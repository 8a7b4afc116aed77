import type { Config } from '../config.ts';

const NOT_WRITABLE = new Set([
  'EACCES',
  'EPERM',
  'EROFS',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_READONLY_DIRECTORY',
]);
const FULL = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/**
 * One line that says what to do when a command cannot start because of its state directory (read-only,
 * not ours, full), instead of a stack trace; undefined for any other failure.
 */
export function startupFailure(err: unknown, config: Config | undefined): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const dir = config?.stateDir ?? 'the state directory';
  if (NOT_WRITABLE.has(code))
    return `cos: cannot write the state directory ${dir} (${code}): make it writable, or point COS_STATE_DIR (--state-dir) at a directory that is`;
  if (FULL.has(code))
    return `cos: the disk holding the state directory ${dir} is full (${code}): free some space, or point COS_STATE_DIR (--state-dir) elsewhere`;
  return undefined;
}
