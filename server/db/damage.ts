// What a damaged database is and what a person does about it, said the same way at start (one line), in
// a tool's answer and in cos_health. No SQLite here: the CLI's start-up error path imports it.
import { DB_FILE_NAME } from './file-name.ts';

/** SQLite's codes for a file that is not (or no longer) a sound database, and the start check's own. */
export function isDamagedCode(code: unknown): boolean {
  return (
    typeof code === 'string' &&
    (code === 'SQLITE_CORRUPT' ||
      code.startsWith('SQLITE_CORRUPT_') ||
      code === 'SQLITE_NOTADB' ||
      code === 'COS_DB_DAMAGED')
  );
}

/** What a person does with a damaged database file. */
export const DAMAGED_ACTION = `restore ${DB_FILE_NAME} from a backup, or move it (with its -wal and -shm files) aside to start a new one (the board is rebuilt from the task files and the code reindexed; memory kept only in the old file is lost with it)`;

/** The same, for someone not running `cos doctor` already. */
export const DAMAGED_REMEDY = `${DAMAGED_ACTION}; \`cos doctor\` checks the result`;
