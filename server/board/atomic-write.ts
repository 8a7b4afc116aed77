// Crash-safe file writes: a reader (a person, git, the watcher) sees either the old file or the new one,
// never half of one, and a write is durable once acknowledged. The new text goes to a hidden temp file
// beside the target, which is fsynced before it is renamed (or linked) into place, and the directory is
// fsynced after: file-writer.ts does the waiting for the disk off the main thread. The rename or link
// that makes the new text visible is synchronous so the caller can run it inside its index
// transaction. A rename over a file frees the old file's inode, which on ext4 costs journal work (0.5 ms
// on average, several ms at the tail, measured under load); a second, hidden name for the old file
// (taken by the file writer) keeps that inode alive so the rename itself takes microseconds, and
// releaseOld() frees it later on the threadpool.
// The temp file lives in the same directory so the rename never crosses a filesystem.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, renameSync, rmSync, unlink } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A hidden name beside `path`, unique to this process and call. */
export const hiddenName = (path: string, suffix: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.${suffix}`);

/** Temp files start with a dot so the watcher and reconciliation ignore them. */
export const isTempName = (name: string): boolean => name.startsWith('.');

/** Drops the hidden name of an old file, freeing it on the threadpool; nobody waits for it. */
export function releaseOld(held: string | null): void {
  if (held !== null) unlink(held, () => {});
}

/** Throws away a temp file that was not installed. */
export function removeTemp(tmp: string): void {
  rmSync(tmp, { force: true });
}

/**
 * Puts a durable temp file in place of `path` (`replace`), or at `path` only if nothing is there yet
 * (`create`: link() fails with EEXIST where rename() would silently replace, so a second writer can
 * never overwrite a task another one just created). Returns false when `create` finds the name taken;
 * the temp file is left for the caller to reuse or remove. Synchronous and cheap: no data is written.
 * Durable once the directory has been fsynced after it.
 */
export function installTemp(tmp: string, path: string, mode: 'replace' | 'create'): boolean {
  if (mode === 'replace') {
    renameSync(tmp, path);
    return true;
  }
  try {
    linkSync(tmp, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // Filesystems without hard links: the caller holds the board's write lock, so check-then-rename
    // races only with a person creating the same file name by hand in the same instant.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw err;
    if (existsSync(path)) return false;
    renameSync(tmp, path);
    return true;
  }
  rmSync(tmp, { force: true });
  return true;
}
