// Crash-safe file writes: a reader (a person, git, the watcher) sees either the old file or the new one,
// never half of one. The temp file lives in the same directory so the rename never crosses a filesystem.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Temp files start with a dot so the watcher and reconciliation ignore them. */
export const isTempName = (name: string): boolean => name.startsWith('.');

function writeTemp(path: string, text: string): string {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return tmp;
}

function fsyncDir(dir: string): void {
  // Makes the rename itself durable; some filesystems refuse to open a directory, which is not fatal.
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* best effort */
  }
}

/** Replaces `path` atomically with `text`. */
export function writeFileAtomic(path: string, text: string, options: { durable?: boolean } = {}): void {
  const tmp = writeTemp(path, text);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  if (options.durable !== false) fsyncDir(dirname(path));
}

/**
 * Creates `path` atomically and only if it does not exist yet (link() fails with EEXIST where rename()
 * would silently replace): a second writer can never overwrite a task another one just created.
 * Returns false when the file already exists.
 */
export function createFileAtomic(path: string, text: string, options: { durable?: boolean } = {}): boolean {
  const tmp = writeTemp(path, text);
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
  } finally {
    rmSync(tmp, { force: true });
  }
  if (options.durable !== false) fsyncDir(dirname(path));
  return true;
}
