// The tasks directory as the board reads it: which names are task files, reading one (absent is null, not
// an error), listing them, and the repo-relative path messages and answers show. A task file that is a
// symlink (or sits behind one) is never read, wherever it points (fs/confined.ts): the board takes it as
// not there, and says so once in the log.
import { mkdirSync, readdirSync, type Stats } from 'node:fs';
import { join, relative } from 'node:path';
import type { Logger } from 'pino';
import { ConfinedRoot } from '../fs/confined.ts';
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
  /** The file's text, or null when it does not exist (or is a symlink). */
  read(name: string): string | null;
  /** The file's stat, or undefined when it does not exist (or is a symlink). */
  stat(name: string): Stats | undefined;
  exists(name: string): boolean;
  /** Task file names in the directory (created if missing), in readdir order. */
  list(): string[];
}

export function openTasksDir(repo: string, path: string, log?: Logger): TasksDir {
  const files = new ConfinedRoot(path);
  const linkWarned = new Set<string>();
  const stat = (name: string): Stats | undefined => {
    const st = files.stat(name);
    if (st === undefined && !linkWarned.has(name) && files.leadsElsewhere(name)) {
      linkWarned.add(name);
      log?.warn(
        { path: relative(repo, join(path, name)) },
        'a task file is a symbolic link; the board reads only regular files in its directory, so it is left out',
      );
    }
    return st;
  };
  const read = (name: string): string | null =>
    stat(name) === undefined ? null : files.readTextOrThrow(name);
  return {
    path,
    repoPath: (name) => relative(repo, join(path, name)),
    read,
    stat,
    exists: (name) => read(name) !== null,
    list() {
      mkdirSync(path, { recursive: true });
      return readdirSync(path).filter(isTaskFileName);
    },
  };
}
