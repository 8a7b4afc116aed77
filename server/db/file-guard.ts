// Whether hub.db is still a file the hub can trust: the one it opened, still there, still a database.
// SQLite cannot tell: a connection keeps writing to a deleted file's inode (and to the old file after a
// `mv` over it) and answers ok, so writes that will not survive a restart would be acknowledged. The
// hub checks here before it runs any call that changes something (runTool) and when cos_health asks:
// a stat of the path against the identity captured at open, and the file's first bytes. No timer, and
// nothing on the path of a read.
import { closeSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { DAMAGED_REMEDY } from './damage.ts';
import { type FileIdentity, fileIdentity, sameFile } from './open.ts';

/** The 16 bytes every SQLite database file begins with. */
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** The files beside the database that belong to the connections open on it. */
const COMPANIONS = ['-wal', '-shm'] as const;

export class DatabaseFileGuard {
  /** The file the hub opened; threads that open it later check they get the same one (sameFileAs). */
  readonly opened: FileIdentity;
  /** The -wal and -shm files the hub's connections use, as they were at open. */
  private readonly companions: Map<string, FileIdentity>;
  /** Held for the header check; closed only after the hub's connections are (see close()). */
  private fd: number | undefined;
  private readonly header = Buffer.alloc(MAGIC.length);
  /** The size and mtime the header was last read at: it is read again only when they change. */
  private verifiedAt = { size: -1, mtimeMs: -1 };
  /** Set once the file was seen damaged (by SQLite, or overwritten under it); stays until a restart. */
  private damagedAs: string | undefined;

  /** `path` has just been opened by SQLite (its header is written: the hub's databases are in WAL mode). */
  constructor(private readonly path: string) {
    const st = statSync(path);
    this.opened = { dev: st.dev, ino: st.ino };
    this.companions = new Map();
    for (const suffix of COMPANIONS) {
      const id = fileIdentity(`${path}${suffix}`);
      if (id) this.companions.set(`${path}${suffix}`, id);
    }
    this.fd = openSync(path, 'r');
  }

  /** SQLite reported the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB) while serving a call. */
  damaged(code: string): void {
    this.damagedAs ??= `is damaged (${code})`;
  }

  /**
   * Why the file cannot be trusted now, with what to do; undefined while it can. A stat (and a 16-byte
   * read when the file's size or mtime moved), a few microseconds: called before each call that changes
   * something and by cos_health, never before a read.
   */
  problem(): string | undefined {
    const name = basename(this.path);
    if (this.damagedAs === undefined) {
      const st = statSync(this.path, { throwIfNoEntry: false });
      if (!st)
        return `${name} was deleted while the hub ran; changes are refused, since they would be lost: put the file back (from a backup) and restart the hub, or restart the hub to start a new database (the board is rebuilt from the task files; memory kept only in the deleted file is lost); \`cos doctor\` checks the result`;
      if (!sameFile(st, this.opened))
        return `${name} was replaced while the hub ran (it still holds the old file); changes are refused, since they would go to the old file: restart the hub to serve the new one; \`cos doctor\` checks it`;
      // Bytes changed under SQLite's page cache: restoring them later would not make it sound again.
      if (!this.looksLikeDatabase(st.size, st.mtimeMs))
        this.damagedAs = 'was overwritten or truncated while the hub ran';
    }
    return this.damagedAs === undefined
      ? undefined
      : `${name} ${this.damagedAs}; changes are refused: stop the hub, ${DAMAGED_REMEDY}`;
  }

  private looksLikeDatabase(size: number, mtimeMs: number): boolean {
    if (size < MAGIC.length || this.fd === undefined) return size >= MAGIC.length;
    if (size === this.verifiedAt.size && mtimeMs === this.verifiedAt.mtimeMs) return true;
    try {
      const sound =
        readSync(this.fd, this.header, 0, MAGIC.length, 0) === MAGIC.length && this.header.equals(MAGIC);
      if (sound) this.verifiedAt = { size, mtimeMs };
      return sound;
    } catch {
      return false;
    }
  }

  /**
   * Call after the database's last connection in this process has closed: closing any descriptor of a
   * file drops every POSIX lock the process holds on it, SQLite's included. When hub.db was deleted or
   * replaced meanwhile, SQLite leaves its -wal behind (it does not checkpoint into a moved file), and the
   * next start would apply those pages to the file now at the path, a restored backup included: they
   * are removed, if they are still the ones the hub's connections used. Returns the names removed.
   */
  close(): string[] {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (sameFile(fileIdentity(this.path), this.opened)) return [];
    const removed: string[] = [];
    for (const [file, id] of this.companions) {
      if (!sameFile(fileIdentity(file), id)) continue;
      try {
        unlinkSync(file);
        removed.push(basename(file));
      } catch {
        // Gone already, or not ours to remove: either way nothing of the old file is applied to the new.
      }
    }
    return removed;
  }
}
