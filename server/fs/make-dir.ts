// Creating the hub's own directories (the state directory, the agents directory) so that a failure says
// why. Node's recursive mkdir reports ENOENT when what stopped it is a read-only or foreign ancestor
// (measured here: EROFS under a read-only mount comes back as ENOENT), so the error classifiers, which
// turn EROFS and EACCES into "make it writable", could only say "failed unexpectedly".
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Creates `path` and its missing parents; a failure carries the code of what really stopped it. */
export function makeDirSync(path: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (err) {
    throw trueCause(path, err);
  }
}

/** makeDirSync(), off the main thread's back. */
export async function makeDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
  } catch (err) {
    throw trueCause(path, err);
  }
}

/**
 * For ENOENT: the nearest ancestor that exists, asked whether it may be written (EROFS on a read-only
 * mount, EACCES without the permission); that error, when there is one, is the cause. Any other error
 * is already what happened.
 */
function trueCause(path: string, err: unknown): unknown {
  if ((err as { code?: unknown } | null)?.code !== 'ENOENT') return err;
  let dir = dirname(path);
  while (statSync(dir, { throwIfNoEntry: false }) === undefined) {
    const up = dirname(dir);
    if (up === dir) return err;
    dir = up;
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch (cause) {
    return cause;
  }
  return err;
}
