// Makes a directory really read-only for this process, for tests of what the hub does when it cannot
// write. As root, permission bits stop nothing: a read-only bind mount of the directory onto itself does
// (EROFS). Otherwise chmod 555 does (EACCES). Undefined when neither can be done here: the test says so
// and skips.
import { execFileSync } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';

export interface ReadOnly {
  /** How it was made read-only, for a test's name or message. */
  how: 'bind mount' | 'chmod';
  /** Makes it writable again. */
  undo(): void;
}

export function makeReadOnly(dir: string): ReadOnly | undefined {
  if (process.getuid?.() !== 0) {
    const mode = statSync(dir).mode & 0o7777;
    chmodSync(dir, 0o555);
    return { how: 'chmod', undo: () => chmodSync(dir, mode) };
  }
  try {
    execFileSync('mount', ['--bind', dir, dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  try {
    execFileSync('mount', ['-o', 'remount,bind,ro', dir], { stdio: 'ignore' });
  } catch {
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return undefined;
  }
  return { how: 'bind mount', undo: () => execFileSync('umount', [dir], { stdio: 'ignore' }) };
}
