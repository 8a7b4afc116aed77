// The tasks directory as the board reads it: which names are task files, reading one (absent is null, not
// an error), listing them, and the repo-relative path messages and answers show.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isTempName } from './atomic-write.ts';

/**
 * Every markdown file in the directory may be a task: other tools name them as they like (`task-7 -
 * Title.md`, upper case, dots, non-ASCII), and the front matter's id decides. Hidden files are not.
 */
export const isTaskFileName = (name: string) =>
  /\.md$/i.test(name) && !name.startsWith('.') && !isTempName(name);

export interface TasksDir {
  /** Absolute path of the directory. */
  readonly path: string;
  /** Repo-relative path of a file in the tasks directory (for messages and answers). */
  repoPath(name: string): string;
  /** The file's text, or null when it does not exist. */
  read(name: string): string | null;
  exists(name: string): boolean;
  /** Task file names in the directory (created if missing), in readdir order. */
  list(): string[];
}

export function openTasksDir(repo: string, path: string): TasksDir {
  const read = (name: string): string | null => {
    try {
      return readFileSync(join(path, name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  };
  return {
    path,
    repoPath: (name) => relative(repo, join(path, name)),
    read,
    exists: (name) => read(name) !== null,
    list() {
      mkdirSync(path, { recursive: true });
      return readdirSync(path).filter(isTaskFileName);
    },
  };
}
