// The repository's git, as the hub reads it: diffs of the working tree or a range, commit logs, refs and
// the default base branch. One per repository, held by the hub (ctx.services.git), so a cache here is
// that repository's and nothing is shared across projects.
import { type FileDiff, parseDiff } from './diff.ts';
import { type Commit, LOG_FLAGS, LOG_FORMAT, parseLog } from './log.ts';
import { EMPTY_TREE, GitError, type RunOptions, type RunResult, runGit } from './run.ts';
import { createTaskLinks } from './task-links.ts';

export interface GitCall {
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

export interface DiffRequest extends GitCall {
  /** A commit, ref or range (`a..b`, `a...b`); omitted: the working tree against HEAD. */
  base?: string | undefined;
  /** The other end (default: the working tree). */
  head?: string | undefined;
  /** Keep the hunks' lines (and list untracked files' contents). */
  lines?: boolean;
  /** Only these paths. */
  paths?: readonly string[];
}

export interface DiffResult {
  files: FileDiff[];
  /** git printed more than the hub keeps: the last files are missing or cut. */
  truncated: boolean;
}

export interface Branch {
  /** Short name (`task/TASK-12-fix`, `origin/main`). */
  name: string;
  ref: string;
  sha: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;
/** What a diff may print before the hub stops reading: the Review page's whole change, bounded. */
export const DIFF_MAX_BYTES = 8 * 1024 * 1024;
const LOG_MAX_BYTES = 32 * 1024 * 1024;
/** Untracked files whose contents a working-tree review shows (each one is a git call). */
const UNTRACKED_WITH_CONTENT = 50;

const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M'];

export type GitService = ReturnType<typeof createGitService>;

declare module '../hub-services.ts' {
  interface HubServices {
    git: GitService;
  }
}

export function createGitService(repo: string) {
  const run = (args: readonly string[], call: GitCall, extra: Partial<RunOptions> = {}): Promise<RunResult> =>
    runGit(repo, args, {
      timeoutMs: call.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: extra.maxBytes ?? 1024 * 1024,
      signal: call.signal,
      ...(extra.truncate ? { truncate: true } : {}),
      ...(extra.okExitCodes ? { okExitCodes: extra.okExitCodes } : {}),
    });

  /** The working tree against HEAD (staged, unstaged and untracked), or base..head / base..working tree. */
  async function diff(req: DiffRequest): Promise<DiffResult> {
    const unified = req.lines ? '--unified=3' : '--unified=0';
    const common = ['diff', unified, ...DIFF_FLAGS];
    const paths = ['--', ...(req.paths ?? [])];
    const opts = { maxBytes: DIFF_MAX_BYTES, truncate: true };
    const parse = (r: RunResult): DiffResult => ({
      files: parseDiff(r.stdout, { lines: req.lines ?? false }),
      truncated: r.truncated,
    });
    if (req.base) {
      const revs = req.head ? [await baseOf(req.base, req), req.head] : [await baseOf(req.base, req)];
      return parse(await run([...common, '--end-of-options', ...revs, ...paths], req, opts));
    }
    let result: DiffResult;
    try {
      result = parse(await run([...common, 'HEAD', ...paths], req, opts));
    } catch (err) {
      // A repository without commits yet: everything staged is new.
      if (!(err instanceof GitError) || err.reason !== 'bad_ref') throw err;
      result = parse(await run([...common, '--cached', EMPTY_TREE, ...paths], req, opts));
    }
    const untracked = (
      await run(['ls-files', '--others', '--exclude-standard', '-z', ...paths], req, {
        maxBytes: 4 * 1024 * 1024,
      })
    ).stdout
      .split('\0')
      .filter(Boolean);
    for (const [i, path] of untracked.entries()) {
      let file: FileDiff | undefined;
      if (req.lines && i < UNTRACKED_WITH_CONTENT) {
        // git reads the file itself (a symlink as its target text, never what it points at).
        const r = await untrackedPatch(path, req);
        file = r === null ? undefined : parseDiff(r.stdout, { lines: true })[0];
        if (file) file.path = path;
      }
      result.files.push(
        file ?? {
          path,
          old_path: null,
          status: 'added',
          binary: false,
          additions: 0,
          deletions: 0,
          lines_changed: 0,
          ranges: [[1, Number.MAX_SAFE_INTEGER]],
          hunks: [],
        },
      );
    }
    return result;
  }

  async function untrackedPatch(path: string, call: GitCall): Promise<RunResult | null> {
    try {
      // `diff --no-index` exits 1 when the files differ, which against /dev/null they always do.
      return await run(['diff', '--no-index', '--unified=3', ...DIFF_FLAGS, '--', '/dev/null', path], call, {
        maxBytes: 512 * 1024,
        truncate: true,
        okExitCodes: [1],
      });
    } catch (err) {
      if (err instanceof GitError && err.reason === 'failed') return null;
      throw err;
    }
  }

  /**
   * `X^` of a root commit names nothing; its "before" is the empty tree, so the Review page can open the
   * first commit like any other.
   */
  async function baseOf(base: string, call: GitCall): Promise<string> {
    const m = /^(.+)\^$/.exec(base);
    if (!m?.[1]) return base;
    if ((await resolve(base, call)) !== null) return base;
    const inner = await resolve(m[1], call);
    return inner === null ? base : EMPTY_TREE;
  }

  /** The commit a revision names, or null when it names none. */
  async function resolve(rev: string, call: GitCall = {}): Promise<string | null> {
    try {
      const r = await run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], call);
      return r.stdout.trim() || null;
    } catch (err) {
      if (err instanceof GitError && (err.reason === 'failed' || err.reason === 'bad_ref')) return null;
      throw err;
    }
  }

  /** Commits of `revs` (e.g. `--all`, `base..branch`), newest first, at most maxCount. */
  async function log(
    revs: readonly string[],
    call: GitCall & { maxCount: number },
  ): Promise<{ commits: Commit[]; truncated: boolean }> {
    try {
      const r = await run(
        ['log', LOG_FORMAT, ...LOG_FLAGS, `--max-count=${call.maxCount}`, ...revs, '--'],
        call,
        { maxBytes: LOG_MAX_BYTES, truncate: true },
      );
      const commits = parseLog(r.stdout);
      // A cut record lost its last files: drop it rather than show it short.
      if (r.truncated) commits.pop();
      return { commits, truncated: r.truncated || commits.length >= call.maxCount };
    } catch (err) {
      // No commits yet.
      if (err instanceof GitError && err.reason === 'bad_ref' && revs.includes('--all'))
        return { commits: [], truncated: false };
      throw err;
    }
  }

  /** Local and remote-tracking branches with their tips. */
  async function branches(call: GitCall = {}): Promise<Branch[]> {
    const r = await run(
      [
        'for-each-ref',
        '--format=%(objectname)%00%(refname)%00%(refname:short)',
        'refs/heads',
        'refs/remotes',
      ],
      call,
      { maxBytes: 8 * 1024 * 1024, truncate: true },
    );
    const out: Branch[] = [];
    for (const line of r.stdout.split('\n')) {
      const [sha, ref, name] = line.split('\0');
      if (sha && ref && name && !ref.endsWith('/HEAD')) out.push({ sha, ref, name });
    }
    return out;
  }

  /** What changes whenever any branch, tag or HEAD moves: the key of caches over the history. */
  async function fingerprint(call: GitCall = {}): Promise<string> {
    try {
      return (await run(['show-ref', '--head'], call, { maxBytes: 16 * 1024 * 1024, truncate: true })).stdout;
    } catch (err) {
      // show-ref exits 1 in a repository without any ref yet.
      if (err instanceof GitError && err.reason === 'failed') return '';
      throw err;
    }
  }

  /**
   * The branch a task's work is measured against: origin's HEAD when it is known, else main, master,
   * trunk or develop, whichever exists first; null when none does.
   */
  async function defaultBase(call: GitCall = {}): Promise<string | null> {
    try {
      const r = await run(['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'], call);
      const name = r.stdout.trim();
      if (name) return name;
    } catch (err) {
      if (!(err instanceof GitError) || err.reason === 'missing' || err.reason === 'timeout') throw err;
    }
    for (const name of ['main', 'master', 'trunk', 'develop'])
      if ((await resolve(`refs/heads/${name}`, call)) !== null) return name;
    return null;
  }

  /** Paths whose working-tree content differs from `rev`'s (the caller intersects with its own). */
  async function differsFromWorkingTree(rev: string, call: GitCall = {}): Promise<Set<string>> {
    const r = await run(['diff', '--name-only', '-z', '--no-renames', '--end-of-options', rev, '--'], call, {
      maxBytes: 8 * 1024 * 1024,
      truncate: true,
    });
    return new Set(r.stdout.split('\0').filter(Boolean));
  }

  const links = createTaskLinks({ log, branches, fingerprint, defaultBase });

  return {
    repo,
    run,
    diff,
    resolve,
    log,
    branches,
    fingerprint,
    defaultBase,
    differsFromWorkingTree,
    /** The commits linked to a task (see task-links.ts); the history scan is cached until a ref moves. */
    taskCommits: links.commitsFor,
  };
}
