// Keeps log lines at WARN and above in the log_events table too (besides .mcp.log), so they can be
// queried (cos_log_query) and shown live (log-warning). pino hands this stream serialised lines; the
// sink exists before the database is open and buffers until it is attached. What is kept is what any
// caller may read: the message and the error's type and message, without stack, absolute paths or SQL
// (public-text.ts); the whole record stays in .mcp.log under its error id.
import type { Db } from '../db/open.ts';
import type { EventBus } from '../events/bus.ts';
import { PublicText, type PublicTextRoots } from './public-text.ts';

const LEVEL_NAMES: Record<number, 'warn' | 'error' | 'fatal'> = { 40: 'warn', 50: 'error', 60: 'fatal' };
const MAX_BUFFER = 5_000;
const MAX_MESSAGE = 4_000;

export interface LogEventRow {
  at: number;
  level: 'warn' | 'error' | 'fatal';
  scope: string | null;
  message: string;
  error_id: string | null;
  session: string | null;
}

export class LogSink {
  private buffer: LogEventRow[] = [];
  private db: Db | undefined;
  private events: EventBus | undefined;
  private insert: ReturnType<Db['prepare']> | undefined;
  private scheduled = false;
  private readonly text: PublicText;

  constructor(roots: PublicTextRoots) {
    this.text = new PublicText(roots);
  }

  /** pino stream interface. */
  write(line: string): void {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const level = LEVEL_NAMES[Number(entry.level)];
    if (!level) return;
    const err = entry.err as { type?: unknown; message?: unknown } | undefined;
    const row: LogEventRow = {
      at:
        typeof entry.time === 'string'
          ? Date.parse(entry.time)
          : typeof entry.time === 'number'
            ? entry.time
            : Date.now(),
      level,
      scope:
        typeof entry.scope === 'string'
          ? entry.scope
          : typeof entry.tool === 'string'
            ? `tool:${entry.tool}`
            : null,
      message: this.messageOf(entry.msg, err).slice(0, MAX_MESSAGE),
      error_id: typeof entry.errorId === 'string' ? entry.errorId : null,
      session: typeof entry.session === 'string' ? entry.session : null,
    };
    this.buffer.push(row);
    if (this.buffer.length > MAX_BUFFER) this.buffer.shift();
    this.events?.publish('log-warning', {
      level: row.level,
      scope: row.scope,
      message: row.message,
      error_id: row.error_id,
    });
    this.schedule();
  }

  /** The line's message, then the error's type and message when the line does not say them already. */
  private messageOf(msg: unknown, err: { type?: unknown; message?: unknown } | undefined): string {
    const text = this.text.scrub(typeof msg === 'string' ? msg : '');
    if (!err) return text;
    const what = this.text.scrub(typeof err.message === 'string' ? err.message : '');
    const error = `${typeof err.type === 'string' ? err.type : 'Error'}${what ? `: ${what}` : ''}`;
    if (!text) return error;
    return what && text.includes(what) ? text : `${text} (${error})`;
  }

  attach(db: Db, events: EventBus): void {
    this.db = db;
    this.events = events;
    this.insert = db.prepare(
      // The stack column stays empty: stacks go to .mcp.log only.
      'INSERT INTO log_events (at, level, scope, message, error_id, session) VALUES (@at, @level, @scope, @message, @error_id, @session)',
    );
    this.schedule();
  }

  detach(): void {
    this.flush();
    this.db = undefined;
    this.insert = undefined;
    this.events = undefined;
  }

  private schedule(): void {
    if (this.scheduled || !this.db) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  flush(): void {
    const db = this.db;
    const insert = this.insert;
    if (!db || !insert || this.buffer.length === 0 || !db.open) return;
    const batch = this.buffer;
    this.buffer = [];
    try {
      db.transaction(() => {
        for (const row of batch) insert.run(row);
      }).immediate();
    } catch {
      // The database refused (locked, full, read-only): keep the rows for the next attempt. Logging the
      // failure would loop straight back into this sink.
      this.buffer = batch.concat(this.buffer).slice(-MAX_BUFFER);
    }
  }
}
