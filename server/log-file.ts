// The destination of .mcp.log: a pino stream that can never take the hub down or hold it. pino's own
// file destination (sonic-boom) throws an unhandled 'error' when a write fails (a full disk: the process
// dies once the failed write's callback runs) and, at exit, retries a failing write forever in a sleep loop
// (SIGTERM then never finishes). Here a failed write drops what it carried, counts it, and tries again a
// second later; the backlog is bounded; flushSync makes one attempt. When writes work again, the file says
// how many lines were lost.
import { closeSync, openSync, write, writeSync } from 'node:fs';

/** Unwritten bytes kept while the file refuses writes; older lines are dropped first beyond this. */
const MAX_BACKLOG_BYTES = 1 << 20;
const RETRY_MS = 1_000;

export interface LogFileState {
  /** The error code of the last failed write while writes fail (ENOSPC, EROFS, EIO …), else null. */
  failing: string | null;
  /** Lines dropped since the hub started because the file refused them. */
  dropped: number;
}

export class LogFile {
  private fd: number | undefined;
  private backlog: string[] = [];
  private backlogBytes = 0;
  private writing = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private failedAt = 0;
  private droppedSinceNote = 0;
  readonly state: LogFileState = { failing: null, dropped: 0 };

  constructor(
    private readonly path: string,
    private readonly sync = false,
  ) {
    this.open();
  }

  private open(): boolean {
    if (this.fd !== undefined) return true;
    try {
      this.fd = openSync(this.path, 'a', 0o600);
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  /** pino's stream interface. Never throws, never waits. */
  write(line: string): boolean {
    if (this.sync) {
      this.backlog.push(line);
      this.backlogBytes += line.length;
      this.flushSync();
      return true;
    }
    this.backlog.push(line);
    this.backlogBytes += line.length;
    while (this.backlogBytes > MAX_BACKLOG_BYTES && this.backlog.length > 1) this.dropOldest();
    this.kick();
    return true;
  }

  private dropOldest(): void {
    const line = this.backlog.shift();
    if (line === undefined) return;
    this.backlogBytes -= line.length;
    this.state.dropped++;
    this.droppedSinceNote++;
  }

  private fail(err: unknown): void {
    this.state.failing = (err as NodeJS.ErrnoException).code ?? 'EIO';
    this.failedAt = Date.now();
  }

  private recovered(): void {
    if (this.state.failing === null) return;
    this.state.failing = null;
    if (this.droppedSinceNote > 0) {
      const note = `${JSON.stringify({ level: 40, time: new Date().toISOString(), scope: 'log', msg: `${this.droppedSinceNote} log lines were dropped while .mcp.log could not be written` })}\n`;
      this.droppedSinceNote = 0;
      this.backlog.unshift(note);
      this.backlogBytes += note.length;
    }
  }

  /** Starts a write of the backlog unless one is under way or the file is resting after a failure. */
  private kick(): void {
    if (this.writing || this.backlog.length === 0 || this.retryTimer) return;
    if (this.state.failing !== null && Date.now() - this.failedAt < RETRY_MS) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.kick();
      }, RETRY_MS).unref();
      return;
    }
    if (!this.open()) {
      // The file cannot be opened either (fail() marked it): try again after the rest.
      this.kick();
      return;
    }
    const lines = this.backlog;
    const buf = Buffer.from(lines.join(''));
    this.backlog = [];
    this.backlogBytes = 0;
    this.writing = true;
    this.writeFrom(buf, 0, lines.length);
  }

  private writeFrom(buf: Buffer, offset: number, lines: number): void {
    write(this.fd!, buf, offset, buf.length - offset, null, (err, n) => {
      if (err) {
        // What this write carried is lost (it cannot be told which lines got out); the next ones wait.
        this.writing = false;
        this.state.dropped += lines;
        this.droppedSinceNote += lines;
        this.fail(err);
        this.kick();
        return;
      }
      if (offset + n < buf.length) {
        this.writeFrom(buf, offset + n, lines);
        return;
      }
      this.writing = false;
      this.recovered();
      this.kick();
    });
  }

  /** Writes the backlog now, once: on failure it is dropped, never retried in a loop. */
  flushSync(): void {
    if (this.backlog.length === 0 || !this.open()) {
      if (this.fd === undefined) this.dropBacklog();
      return;
    }
    const buf = Buffer.from(this.backlog.join(''));
    const lines = this.backlog.length;
    this.backlog = [];
    this.backlogBytes = 0;
    try {
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd!, buf, off, buf.length - off);
      this.recovered();
    } catch (err) {
      this.state.dropped += lines;
      this.droppedSinceNote += lines;
      this.fail(err);
    }
  }

  private dropBacklog(): void {
    this.state.dropped += this.backlog.length;
    this.droppedSinceNote += this.backlog.length;
    this.backlog = [];
    this.backlogBytes = 0;
  }

  /** pino's logger.flush(cb). */
  flush(cb?: (err?: Error) => void): void {
    if (!this.writing) this.flushSync();
    cb?.();
  }

  end(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (!this.writing) this.flushSync();
    if (this.fd !== undefined && !this.writing) {
      try {
        closeSync(this.fd);
      } catch {
        // Closing a file that refused writes may report the same error; nothing is left to save.
      }
      this.fd = undefined;
    }
  }
}
