// Which files the graph reads: every file with a known language under the repo, minus .gitignore
// rules (nested .gitignore files apply below their directory), the default ignore list, minified
// files and files over the size cap. Nothing outside the repository's real path is read: the walk skips
// symlinks, and a path handed in (reindex paths, watcher events) must be where it says (fs/confined.ts).
import { readdirSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { ConfinedRoot } from '../fs/confined.ts';
import { languageOf } from './parser.ts';

export const DEFAULT_IGNORED_DIRS = [
  'node_modules',
  'dist',
  'build',
  '.git',
  'vendor',
  'vendored',
  'third_party',
  '.cos',
  'coverage',
  '__pycache__',
  '.venv',
  'venv',
  '.next',
  '.turbo',
  '.cache',
];
export const MAX_FILE_BYTES = 1024 * 1024;

export interface WalkOptions {
  /** Directory names skipped wherever they appear (default DEFAULT_IGNORED_DIRS). */
  ignoredDirs?: readonly string[];
  /** Honour .gitignore files (default true). */
  gitignore?: boolean;
  /**
   * Repo-relative directories the graph leaves alone, whatever is in them: the board's task files,
   * which the board indexes itself and rewrites on every agent action.
   */
  excludedPaths?: readonly string[];
}

export interface WalkedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

interface Rules {
  base: string;
  ig: Ignore;
}

/** Whether a path (repo-relative) is one the graph would never read, before looking at the disk. */
export function isIgnoredName(path: string, ignoredDirs: ReadonlySet<string>): boolean {
  const parts = path.split('/');
  for (let i = 0; i < parts.length - 1; i++) if (ignoredDirs.has(parts[i]!)) return true;
  const base = parts[parts.length - 1] ?? '';
  return (
    /\.min\.(js|css|mjs|cjs)$/.test(base) || /[.-]bundle\.js$/.test(base) || languageOf(path) === undefined
  );
}

export class Walker {
  private readonly ignoredDirs: Set<string>;
  private readonly rulesCache = new Map<string, Rules | null>();
  private readonly excludedPaths: string[];
  /** The repository as every reader sees it: confined to its real path. */
  readonly files: ConfinedRoot;

  constructor(
    private readonly root: string,
    private readonly options: WalkOptions = {},
  ) {
    this.files = new ConfinedRoot(root);
    this.ignoredDirs = new Set(options.ignoredDirs ?? DEFAULT_IGNORED_DIRS);
    this.excludedPaths = (options.excludedPaths ?? [])
      .map((p) => p.replace(/\/+$/, ''))
      .filter((p) => p !== '');
  }

  /** Whether `path` is in (or is) one of the excludedPaths. */
  excluded(path: string): boolean {
    return this.excludedPaths.some((p) => path === p || path.startsWith(`${p}/`));
  }

  /** Every indexable file under `dir` (repo-relative, '' = root), and the directories visited. */
  walk(dir = ''): { files: WalkedFile[]; dirs: string[] } {
    const files: WalkedFile[] = [];
    const dirs: string[] = [];
    // The starting directory may be any path handed in: it must be a directory where it says it is. Below
    // it, only entries that are directories or files themselves (never symlinks) are followed.
    if (dir !== '' && !this.files.stat(dir)?.isDirectory()) return { files, dirs };
    const stack = [dir];
    while (stack.length) {
      const rel = stack.pop()!;
      if (rel && (this.excluded(rel) || this.ignoredPath(rel, true))) continue;
      dirs.push(rel);
      let entries: import('node:fs').Dirent[];
      try {
        entries = readdirSync(join(this.root, rel), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        const p = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!this.ignoredDirs.has(e.name)) stack.push(p);
        } else if (e.isFile()) {
          const f = this.checkEntry(p);
          if (f) files.push(f);
        }
      }
    }
    files.sort((a, b) => (a.path < b.path ? -1 : 1));
    return { files, dirs };
  }

  /**
   * A path handed in: its size and mtime when the graph reads it, or undefined when it is ignored, gone,
   * or not where it says it is (a symlink on the way).
   */
  check(path: string): WalkedFile | undefined {
    if (this.skipped(path)) return undefined;
    return this.sized(path, this.files.stat(path));
  }

  /** A file entry of a walked directory: a regular file there, so no symlink to resolve. */
  private checkEntry(path: string): WalkedFile | undefined {
    if (this.skipped(path)) return undefined;
    try {
      return this.sized(path, statSync(join(this.root, path)));
    } catch {
      return undefined;
    }
  }

  private skipped(path: string): boolean {
    return isIgnoredName(path, this.ignoredDirs) || this.excluded(path) || this.ignoredPath(path, false);
  }

  private sized(path: string, s: Stats | undefined): WalkedFile | undefined {
    if (!s?.isFile() || s.size > MAX_FILE_BYTES) return undefined;
    return { path, size: s.size, mtimeMs: s.mtimeMs };
  }

  private ignoredPath(path: string, isDir: boolean): boolean {
    if (this.options.gitignore === false) return false;
    const parts = path.split('/');
    // Rules from every ancestor directory's .gitignore, tested against the path relative to it.
    for (let i = 0; i < parts.length; i++) {
      const base = parts.slice(0, i).join('/');
      const rules = this.rules(base);
      if (!rules) continue;
      const rel = parts.slice(i).join('/') + (isDir ? '/' : '');
      if (rules.ig.ignores(rel)) return true;
    }
    return false;
  }

  private rules(base: string): Rules | null {
    const cached = this.rulesCache.get(base);
    if (cached !== undefined) return cached;
    const text = this.files.readText(base === '' ? '.gitignore' : `${base}/.gitignore`);
    let rules: Rules | null = null;
    try {
      if (text !== undefined) rules = { base, ig: ignore().add(text) };
    } catch {
      rules = null;
    }
    this.rulesCache.set(base, rules);
    return rules;
  }

  /** Forget cached .gitignore rules (a .gitignore changed). */
  resetRules(): void {
    this.rulesCache.clear();
  }
}
