// Finds the repository's text documents and keeps the index in step with them. Paths in the index are
// repository-relative with forward slashes. `.gitignore` files are honoured at every level (a nested file's
// rules apply below it); node_modules, .git and the hub's state directory are never entered. Nothing
// outside the repository's real path is read: walks skip symlinks, and a path handed in (a watcher event)
// must be where it says it is (fs/confined.ts).
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { basename, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { insideRepo } from '../config.ts';
import { ConfinedRoot } from '../fs/confined.ts';
import { chunkDocument, formatOf } from './chunker.ts';
import type { DocsStore } from './store.ts';

/** Documents larger than this are generated or vendored, not prose worth searching. */
export const MAX_DOC_BYTES = 2 * 1024 * 1024;
const ALWAYS_SKIPPED = new Set(['node_modules', '.git', '.cos']);

export interface IndexerOptions {
  repo: string;
  /** Absolute; skipped when inside the repository (the hub writes there constantly). */
  stateDir: string;
  /**
   * Absolute directories skipped as well when inside the repository: the board's task files, which the
   * board indexes itself and rewrites on every claim, move and work-log line.
   */
  excludedDirs?: string[];
  store: DocsStore;
  now: () => number;
}

export interface IndexReport {
  indexed: number;
  unchanged: number;
  removed: number;
  /** Directories walked (the watcher watches these). */
  dirs: string[];
}

/** `type`/`doc_type` from front matter when it is a short word, else a guess from the file's name and place. */
export function docTypeOf(path: string, frontMatter: Record<string, unknown>): string {
  const declared = frontMatter.type ?? frontMatter.doc_type;
  if (typeof declared === 'string' && /^[A-Za-z0-9_-]{1,40}$/.test(declared)) return declared.toLowerCase();
  const name = basename(path).toLowerCase();
  if (name.startsWith('readme')) return 'readme';
  if (/^(changelog|changes|history|release-notes)/.test(name)) return 'changelog';
  if (name.startsWith('contributing')) return 'contributing';
  const segments = path.toLowerCase().split('/').slice(0, -1);
  if (segments.some((s) => s === 'adr' || s === 'adrs' || s === 'decisions')) return 'adr';
  if (segments.includes('tasks')) return 'task';
  return 'doc';
}

/** `ignore` throws on names it cannot take as relative paths; such a name is simply not ignored. */
function safeIgnores(rules: Ignore, path: string): boolean {
  try {
    return rules.ignores(path);
  } catch {
    return false;
  }
}

export function createIndexer(options: IndexerOptions) {
  const { repo, store, now } = options;
  const skipped = [options.stateDir, ...(options.excludedDirs ?? [])]
    .map((dir) => insideRepo(repo, dir))
    .filter((rel): rel is string => rel !== null);
  /** dir (relative, '' for the root) → its .gitignore rules, null when it has none. */
  const ignoreCache = new Map<string, Ignore | null>();

  const files = new ConfinedRoot(repo);
  const toRel = (abs: string) => relative(repo, abs).split(sep).join('/');
  const toAbs = (rel: string) => files.abs(rel);

  async function rulesOf(dir: string): Promise<Ignore | null> {
    const cached = ignoreCache.get(dir);
    if (cached !== undefined) return cached;
    let rules: Ignore | null = null;
    const read = await files.readTextAsync(dir === '' ? '.gitignore' : `${dir}/.gitignore`);
    try {
      rules = read === undefined ? null : ignore().add(read.text);
    } catch {
      rules = null;
    }
    ignoreCache.set(dir, rules);
    return rules;
  }

  /** Whether `rel` (a file, or a directory when `isDir`) is skipped by name or by any .gitignore above it. */
  async function isIgnored(rel: string, isDir: boolean): Promise<boolean> {
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) {
      if (ALWAYS_SKIPPED.has(parts[i]!) && (i < parts.length - 1 || isDir)) return true;
    }
    if (skipped.some((dir) => rel === dir || rel.startsWith(`${dir}/`))) return true;
    // Each ancestor's rules see the path relative to that ancestor. Directories on the way are tested with a
    // trailing slash, since a rule like `build/` matches directories only and covers everything below.
    for (let i = 0; i < parts.length; i++) {
      const rules = await rulesOf(parts.slice(0, i).join('/'));
      if (rules === null) continue;
      for (let j = i; j < parts.length; j++) {
        const last = j === parts.length - 1;
        if (safeIgnores(rules, parts.slice(i, j + 1).join('/') + (!last || isDir ? '/' : ''))) return true;
      }
    }
    return false;
  }

  /** Indexes one file if its content changed; true when it was (re)chunked. */
  async function indexFile(rel: string): Promise<'indexed' | 'unchanged' | 'skipped'> {
    if (formatOf(rel) === null) return 'skipped';
    const st = await files.statAsync(rel);
    if (!st?.isFile() || st.size > MAX_DOC_BYTES) return 'skipped';
    const known = store.file(rel);
    if (known && known.mtime_ms === Math.trunc(st.mtimeMs) && known.size === st.size) return 'unchanged';
    const read = await files.readTextAsync(rel, MAX_DOC_BYTES);
    if (read === undefined) return 'skipped';
    const source = read.text;
    const hash = createHash('sha256').update(source).digest('hex');
    if (known && known.content_hash === hash) {
      store.touch(rel, st.mtimeMs, st.size);
      return 'unchanged';
    }
    const doc = chunkDocument(rel, source);
    store.replace(rel, doc, {
      mtimeMs: st.mtimeMs,
      size: st.size,
      hash,
      docType: docTypeOf(rel, doc.frontMatter),
      indexedAt: now(),
    });
    return 'indexed';
  }

  /** Walks `dirRel` (assumed not ignored) and brings every document under it up to date. */
  async function scan(dirRel: string, signal?: AbortSignal): Promise<IndexReport> {
    const report: IndexReport = { indexed: 0, unchanged: 0, removed: 0, dirs: [] };
    const seen = new Set<string>();
    // The starting directory may be any path handed in: it must be a directory where it says it is.
    // Below it only directory and file entries are followed, never symlinks.
    if (dirRel !== '' && !(await files.statAsync(dirRel))?.isDirectory()) return report;
    const queue = [dirRel];
    while (queue.length > 0) {
      if (signal?.aborted) return report;
      const dir = queue.shift()!;
      report.dirs.push(dir);
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(toAbs(dir), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (!(await isIgnored(rel, true))) queue.push(rel);
        } else if (e.isFile() && formatOf(e.name) !== null && !(await isIgnored(rel, false))) {
          seen.add(rel);
          try {
            const r = await indexFile(rel);
            if (r === 'indexed') report.indexed++;
            else if (r === 'unchanged') report.unchanged++;
          } catch {
            // Vanished or unreadable between readdir and read: the next change event brings it back.
            seen.delete(rel);
          }
        }
      }
    }
    const prefix = dirRel === '' ? '' : `${dirRel}/`;
    const gone = store.pathsUnder(prefix).filter((p) => !seen.has(p));
    report.removed = store.remove(gone);
    return report;
  }

  return {
    toRel,
    scan,
    isIgnored,
    indexFile,
    /** Forget cached .gitignore rules (one changed). */
    clearIgnoreCache: () => ignoreCache.clear(),
    /** Brings one changed path (file or directory, present or gone) up to date. */
    async refreshPath(rel: string): Promise<IndexReport> {
      const report: IndexReport = { indexed: 0, unchanged: 0, removed: 0, dirs: [] };
      // Not there, or not where it says it is (a symlink on the way): as good as gone.
      const st = (await files.statAsync(rel)) ?? null;
      if (st?.isDirectory()) {
        if (await isIgnored(rel, true)) {
          report.removed = store.remove(store.pathsUnder(`${rel}/`));
          return report;
        }
        return scan(rel);
      }
      if (st === null) {
        // A deleted file, or a deleted directory: drop whatever the index held under that name.
        report.removed = store.remove([rel, ...store.pathsUnder(`${rel}/`)]);
        return report;
      }
      if (formatOf(rel) === null || (await isIgnored(rel, false))) {
        report.removed = store.remove([rel]);
        return report;
      }
      const r = await indexFile(rel);
      if (r === 'indexed') report.indexed++;
      else if (r === 'unchanged') report.unchanged++;
      else report.removed = store.remove([rel]);
      return report;
    },
  };
}

export type Indexer = ReturnType<typeof createIndexer>;
