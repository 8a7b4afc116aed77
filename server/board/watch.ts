// Watching the tasks directory: changed files are re-read after a quiet period (never starved by a long
// git checkout), with periodic quick rescans as the safety net for events the watcher misses and as the
// fallback when the directory cannot be watched at all.
import { type FSWatcher, watch } from 'node:fs';
import type { Logger } from 'pino';
import { ToolError } from '../errors.ts';
import type { Reconciler } from './reconcile.ts';
import { isTaskFileName, type TasksDir } from './tasks-dir.ts';
import type { WritePath } from './write-path.ts';

export interface WatcherOptions {
  dir: TasksDir;
  reconciler: Reconciler;
  writes: WritePath;
  log: Logger;
  /** Quiet period before changed files are re-read. */
  debounceMs: number;
  /** Full re-scan interval as a safety net for missed watch events (0 turns it off). */
  rescanMs: number;
}

export function createWatcher({ dir, reconciler, writes, log, debounceMs, rescanMs }: WatcherOptions) {
  let watcher: FSWatcher | null = null;
  let rescanTimer: NodeJS.Timeout | null = null;
  let flushTimer: NodeJS.Timeout | null = null;
  let firstPending = 0;
  const pending = new Set<string>();
  let closed = false;

  function scheduleFlush(): void {
    if (closed) return;
    if (pending.size === 1 || firstPending === 0) firstPending = Date.now();
    if (flushTimer) clearTimeout(flushTimer);
    // Debounced, but never starved: a long git checkout is flushed at least once a second.
    const wait = Date.now() - firstPending > 1000 ? 0 : debounceMs;
    flushTimer = setTimeout(flushPending, wait);
  }

  function flushPending(): void {
    flushTimer = null;
    firstPending = 0;
    if (pending.size === 0) return;
    const names = [...pending];
    pending.clear();
    try {
      writes.write(() => {
        for (const n of names) reconciler.syncName(n);
      });
    } catch (err) {
      log.error({ err }, 'task board could not re-read changed files; a later rescan will retry');
      if (err instanceof ToolError && err.category === 'transient') {
        for (const n of names) pending.add(n);
        scheduleFlush();
      }
    }
  }

  function safeRescan(): void {
    if (closed) return;
    try {
      reconciler.reconcile('quick');
    } catch (err) {
      log.error({ err }, 'task board rescan failed; the next one will retry');
    }
  }

  return {
    start(): void {
      closed = false;
      try {
        watcher = watch(dir.path, { persistent: false }, (_event, filename) => {
          if (filename === null) {
            safeRescan();
            return;
          }
          const name = filename.toString();
          if (!isTaskFileName(name)) return;
          pending.add(name);
          scheduleFlush();
        });
        watcher.on('error', (err) => {
          log.warn({ err }, 'task directory watcher failed; falling back to periodic rescans');
          watcher?.close();
          watcher = null;
          if (rescanTimer === null) rescanTimer = setInterval(safeRescan, 2000).unref();
        });
      } catch (err) {
        log.warn({ err }, 'cannot watch the task directory; falling back to periodic rescans');
        rescanTimer = setInterval(safeRescan, 2000).unref();
      }
      if (rescanMs > 0 && rescanTimer === null) rescanTimer = setInterval(safeRescan, rescanMs).unref();
    },
    /** Processes changed files now instead of after the debounce (tests, and before a consistency check). */
    flush(): void {
      if (flushTimer) clearTimeout(flushTimer);
      flushPending();
    },
    close(): void {
      closed = true;
      watcher?.close();
      watcher = null;
      if (rescanTimer) clearInterval(rescanTimer);
      rescanTimer = null;
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      pending.clear();
    },
  };
}
