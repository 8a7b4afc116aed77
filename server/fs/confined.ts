// Reading a directory tree (the repository, the board's tasks directory) without ever leaving it. Every
// reader of repository files goes through a ConfinedRoot: the graph's walker, its parse workers and its
// watcher, the docs indexer and its watchers, the board's task files.
//
// The rule: a path is read only where it lexically is. Its real path (every symlink resolved) must be the
// same path under the root's real path; a symlink anywhere on the way, to outside or inside, makes the
// path "not there". Walks skip symlink entries for the same reason, so a link into the tree is not read
// twice and a link out of it is never read at all (git, too, keeps a link as a link, not as its target).
// Files are opened with O_NOFOLLOW after the check, which closes the window in which the last component
// could be swapped for a link.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

/** open() flags that refuse a symlink as the last component (ELOOP). */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

export class ConfinedRoot {
  readonly root: string;
  private real: string | undefined;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The root's real path; resolved when first needed (the directory may appear after the hub starts). */
  get realRoot(): string {
    if (this.real !== undefined) return this.real;
    try {
      this.real = realpathSync.native(this.root);
      return this.real;
    } catch {
      return this.root;
    }
  }

  /** `rel` (forward slashes, '' for the root) joined onto the root as written. */
  abs(rel: string): string {
    return rel === '' ? this.root : join(this.root, ...rel.split('/'));
  }

  private isWhereItSays(rel: string, real: string): boolean {
    const root = this.realRoot;
    const expected = rel === '' ? root : join(root, ...rel.split('/'));
    return real === expected && (real === root || real.startsWith(root + sep));
  }

  /** The real absolute path of `rel` when it is there and where it says it is; undefined otherwise. */
  locate(rel: string): string | undefined {
    let real: string;
    try {
      real = realpathSync.native(this.abs(rel));
    } catch {
      return undefined;
    }
    return this.isWhereItSays(rel, real) ? real : undefined;
  }

  async locateAsync(rel: string): Promise<string | undefined> {
    let real: string;
    try {
      real = await realpath(this.abs(rel));
    } catch {
      return undefined;
    }
    return this.isWhereItSays(rel, real) ? real : undefined;
  }

  /** Whether `rel` exists as an entry (a symlink, dangling or not) but is not where it says it is. */
  leadsElsewhere(rel: string): boolean {
    try {
      lstatSync(this.abs(rel));
    } catch {
      return false;
    }
    return this.locate(rel) === undefined;
  }

  /** stat() of `rel` when it is there and confined; undefined when it is gone or leads elsewhere. */
  stat(rel: string): Stats | undefined {
    const real = this.locate(rel);
    if (real === undefined) return undefined;
    try {
      return statSync(real);
    } catch {
      return undefined;
    }
  }

  async statAsync(rel: string): Promise<Stats | undefined> {
    const real = await this.locateAsync(rel);
    if (real === undefined) return undefined;
    try {
      return await stat(real);
    } catch {
      return undefined;
    }
  }

  /**
   * A regular file's text, or undefined when it is gone, leads elsewhere, is not a regular file, or is
   * larger than `maxBytes`.
   */
  readText(rel: string, maxBytes = Number.POSITIVE_INFINITY): string | undefined {
    const real = this.locate(rel);
    if (real === undefined) return undefined;
    let fd: number;
    try {
      fd = openSync(real, READ_FLAGS);
    } catch {
      return undefined;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > maxBytes) return undefined;
      const buf = Buffer.allocUnsafe(st.size);
      let off = 0;
      while (off < st.size) {
        const n = readSync(fd, buf, off, st.size - off, off);
        if (n === 0) break;
        off += n;
      }
      return buf.subarray(0, off).toString('utf8');
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Like readText, for readers that must tell "not there" from a failure: null when `rel` is gone or
   * leads elsewhere; any other error (a permission, an I/O error) is thrown for the caller to classify.
   */
  readTextOrThrow(rel: string): string | null {
    if (this.locate(rel) === undefined) return null;
    let fd: number;
    try {
      fd = openSync(this.abs(rel), READ_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ELOOP') return null;
      throw err;
    }
    try {
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  }

  async readTextAsync(
    rel: string,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<{ text: string; stats: Stats } | undefined> {
    const real = await this.locateAsync(rel);
    if (real === undefined) return undefined;
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(real, READ_FLAGS);
    } catch {
      return undefined;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > maxBytes) return undefined;
      return { text: await handle.readFile('utf8'), stats };
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }
}
