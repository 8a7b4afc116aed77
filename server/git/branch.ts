// The clone's current branch, as the hub reports it with its agents (a team's hubs show which branch each
// machine's agents work on). Read once at start through git, then again only when HEAD changes: git
// rewrites HEAD by renaming HEAD.lock over it, so the git directory is watched (not the file, whose inode
// a rename replaces) and a change of HEAD reads the branch anew, a moment later to let a burst settle.
import { type FSWatcher, watch } from 'node:fs';
import { GitError, runGit } from './run.ts';

const READ = { timeoutMs: 5000, maxBytes: 4096 };
const SETTLE_MS = 50;

export interface BranchWatcher {
  /** The checked-out branch's short name, `detached at <sha>` on a detached HEAD, null before it is read or outside git. */
  readonly current: string | null;
  /** Reads the branch and starts watching; resolves once it was read (or could not be). */
  start(): Promise<void>;
  /** Settles when a read started by a HEAD change has finished (tests). */
  settled(): Promise<void>;
  close(): void;
}

export function watchBranch(repo: string, onChange?: (branch: string | null) => void): BranchWatcher {
  let current: string | null = null;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let reading: Promise<void> = Promise.resolve();
  let closed = false;

  async function readBranch(): Promise<string | null> {
    try {
      const r = await runGit(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], READ);
      const name = r.stdout.trim();
      if (name) return name;
    } catch (err) {
      if (!(err instanceof GitError) || err.reason !== 'failed') return null;
      // symbolic-ref fails on a detached HEAD: name the commit instead.
    }
    try {
      const sha = (await runGit(repo, ['rev-parse', '--short', 'HEAD'], READ)).stdout.trim();
      return sha ? `detached at ${sha}` : null;
    } catch {
      return null;
    }
  }

  function reread(): void {
    reading = reading.then(async () => {
      if (closed) return;
      const next = await readBranch();
      if (next === current || closed) return;
      current = next;
      onChange?.(next);
    });
  }

  return {
    get current() {
      return current;
    },
    async start() {
      current = await readBranch();
      let gitDir: string;
      try {
        gitDir = (await runGit(repo, ['rev-parse', '--absolute-git-dir'], READ)).stdout.trim();
      } catch {
        return;
      }
      if (closed || !gitDir) return;
      try {
        watcher = watch(gitDir, { persistent: false }, (_kind, name) => {
          if (name !== 'HEAD') return;
          clearTimeout(timer);
          timer = setTimeout(reread, SETTLE_MS);
          timer.unref();
        });
        // A git directory removed under the hub: the branch stays what it was last read as.
        watcher.on('error', () => watcher?.close());
      } catch {
        // No watch (a file system without notifications): the branch read at start stays.
      }
    },
    async settled() {
      await new Promise((r) => setTimeout(r, SETTLE_MS * 2));
      await reading;
    },
    close() {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
