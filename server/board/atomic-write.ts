// Crash-safe file writes: a reader (a person, git, the watcher) sees either the old file or the new one,
// never half of one, and a write is durable once acknowledged. The slow part, waiting for the disk
// (the fsync of the file's data), runs on libuv's threadpool so the event loop keeps serving other calls
// meanwhile; open, write into the page cache, rename and close are synchronous system calls of
// microseconds, and so is the directory's fsync, which writes metadata only and is shared by every writer
// of one turn of the event loop (an await on the threadpool would cost each of them a turn of a busy
// loop). The rename or link that makes the new text visible is synchronous
// so the caller can run it inside its index transaction. A rename over a file frees the old file's
// inode, which on ext4 costs journal work (0.5 ms on average, several ms at the tail, measured under
// load); holdOld() keeps that inode alive under a hidden name so the rename itself takes microseconds,
// and releaseOld() frees it later on the threadpool.
// The temp file lives in the same directory so the rename never crosses a filesystem.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsync,
  fsyncSync,
  link,
  linkSync,
  openSync,
  renameSync,
  rmSync,
  unlink,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const fsyncAsync = promisify(fsync);
const linkAsync = promisify(link);

const hiddenName = (path: string, suffix: string) =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.${suffix}`);

/** Temp files start with a dot so the watcher and reconciliation ignore them. */
export const isTempName = (name: string): boolean => name.startsWith('.');

/** Writes `text` to a new temp file beside `path` and fsyncs it. Returns the temp file's path. */
export async function writeTemp(path: string, text: string): Promise<string> {
  const tmp = hiddenName(path, 'tmp');
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, text);
    await fsyncAsync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  return tmp;
}

/**
 * A second, hidden name for the file at `path` as it is now (null when there is none), so a rename over
 * it does not free its inode: see releaseOld().
 */
export async function holdOld(path: string): Promise<string | null> {
  const held = hiddenName(path, 'old');
  try {
    await linkAsync(path, held);
    return held;
  } catch {
    return null; // Gone, or no hard links here: the rename frees the inode itself, which is only slower.
  }
}

/** Drops a name from holdOld(), freeing the old file on the threadpool; nobody waits for it. */
export function releaseOld(held: string | null): void {
  if (held !== null) unlink(held, () => {});
}

/** Throws away a temp file that was not installed. */
export function removeTemp(tmp: string): void {
  rmSync(tmp, { force: true });
}

/**
 * Puts a temp file written by writeTemp() in place of `path` (`replace`), or at `path` only if nothing is
 * there yet (`create`: link() fails with EEXIST where rename() would silently replace, so a second writer
 * can never overwrite a task another one just created). Returns false when `create` finds the name taken;
 * the temp file is left for the caller to reuse or remove. Synchronous and cheap: no data is written.
 * Durable once syncDir() of the directory has completed after it.
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

function fsyncDir(dir: string): void {
  // Makes renames and links durable; some filesystems refuse to open a directory, which is not fatal.
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    /* best effort */
  } finally {
    closeSync(fd);
  }
}

/**
 * A batched directory fsync: `sync()` resolves after an fsync of `dir` that started after the call.
 * Callers in one turn of the event loop share one fsync, run once the turn's I/O callbacks have run
 * (setImmediate). The fsync is synchronous: it writes only the directory's metadata (the files' data is
 * already on disk), 0.1 ms here, while a trip through the threadpool would cost every writer of the
 * turn another turn of a busy event loop (20 ms and more under load), which was the writes' tail.
 */
export function dirSyncer(dir: string): { sync(): Promise<void> } {
  let batch: Promise<void> | null = null;
  return {
    sync() {
      batch ??= new Promise<void>((resolve) => {
        setImmediate(() => {
          batch = null;
          fsyncDir(dir);
          resolve();
        });
      });
      return batch;
    },
  };
}
