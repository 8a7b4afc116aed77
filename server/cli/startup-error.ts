import { join } from 'node:path';
import type { Config } from '../config.ts';
import { DAMAGED_REMEDY, isDamagedCode } from '../db/damage.ts';
import { DB_FILE_NAME } from '../db/file-name.ts';

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
 * not ours, full) or its database (damaged), instead of a stack trace; undefined for any other failure.
 */
export function startupFailure(err: unknown, config: Config | undefined): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const dir = config?.stateDir ?? 'the state directory';
  if (NOT_WRITABLE.has(code))
    return `cos: cannot write the state directory ${dir} (${code}): make it writable, or point COS_STATE_DIR (--state-dir) at a directory that is`;
  if (isDamagedCode(code)) {
    const db = config ? join(config.stateDir, DB_FILE_NAME) : DB_FILE_NAME;
    return `cos: the database ${db} is damaged (${code}): ${DAMAGED_REMEDY}; then start again`;
  }
  if (FULL.has(code))
    return `cos: the disk holding the state directory ${dir} is full (${code}): free some space, or point COS_STATE_DIR (--state-dir) elsewhere`;
  return undefined;
}
