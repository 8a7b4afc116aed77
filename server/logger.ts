// The hub's pino logger. Everything goes to $COS_STATE_DIR/.mcp.log (note the leading dot), which every
// hub process on the machine appends to, so each line carries the process id and the thread.
import { join } from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import pino, { type Logger } from 'pino';
import { makeDirSync } from './fs/make-dir.ts';
import { LogFile } from './log-file.ts';

export const LOG_FILE_NAME = '.mcp.log';

/** `main`, or `worker-<id>` inside a worker thread: which thread of the process logged a line. */
export const threadName = (): string => (isMainThread ? 'main' : `worker-${threadId}`);

export interface LoggerOptions {
  stateDir: string;
  level?: string;
  /** Write synchronously (tests and short CLI commands, so nothing is lost at exit). */
  sync?: boolean;
  /** Also receives every line at WARN and above (the queryable log table). */
  warnSink?: { write(line: string): void };
  /** Where .mcp.log lines go; by default a LogFile of its own (log-file.ts says why not pino's). */
  destination?: LogFile;
}

export function createLogger(options: LoggerOptions): Logger {
  makeDirSync(options.stateDir);
  const destination =
    options.destination ?? new LogFile(join(options.stateDir, LOG_FILE_NAME), options.sync ?? false);
  const settings = {
    level: options.level ?? 'info',
    base: { pid: process.pid, thread: threadName() },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (!options.warnSink) return pino(settings, destination);
  return pino(
    settings,
    pino.multistream([
      { level: settings.level as pino.Level, stream: destination },
      { level: 'warn', stream: options.warnSink },
    ]),
  );
}
