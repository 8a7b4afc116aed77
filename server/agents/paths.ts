// Paths from hook payloads as the hub keeps them: repository-relative when the file's real path is inside
// the repository's real path (symlinks resolved, so a link pointing out counts as outside), the resolved
// absolute path otherwise. Only metadata is looked at (realpath); no file is ever opened here.
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { insideRepo } from '../config.ts';

export interface RepoPaths {
  /** The repository's real path. */
  readonly root: string;
  /** Where this path really is: the real path, or for a file not created yet, its real parent + name. */
  real(path: string): string;
  /** Repository-relative path when really inside the repository (symlinks resolved), null otherwise. */
  relative(path: string): string | null;
  /**
   * The key the hub stores a path under: repository-relative when it names a place inside the
   * repository, absolute otherwise. Lexical (no file system call: it runs on every event); whether
   * the file is really inside is relative()'s question, asked before anything reads it.
   */
  stored(path: string): string;
}

export function createRepoPaths(repo: string): RepoPaths {
  let root = repo;
  try {
    root = realpathSync.native(repo);
  } catch {
    // A repository that does not exist (yet) has no real path to compare against; keep it as given.
  }
  const real = (path: string): string => {
    let tail = '';
    let current = path;
    // Walk up to the nearest part that exists (a Write creates files, and whole directories, anew).
    for (let i = 0; i < 64; i++) {
      try {
        const resolved = realpathSync.native(current);
        return tail ? join(resolved, tail) : resolved;
      } catch {
        const parent = dirname(current);
        if (parent === current) return path;
        tail = tail ? join(basename(current), tail) : basename(current);
        current = parent;
      }
    }
    return path;
  };
  const relative = (path: string): string | null =>
    path.startsWith('/') ? insideRepo(root, real(path)) : null;
  const given = resolve(repo);
  return {
    root,
    real,
    relative,
    stored: (path) => {
      if (!path.startsWith('/')) return path;
      const p = resolve(path);
      return insideRepo(root, p) ?? (given !== root ? insideRepo(given, p) : null) ?? p;
    },
  };
}
