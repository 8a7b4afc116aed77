// A debounced watcher over the repo's indexable directories (one fs.watch per directory: Linux has no
// cheap recursive watch, and this way ignored trees such as node_modules cost nothing). Bursts of
// events (an editor's save, a git checkout) become one batch of paths.
import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_IGNORED_DIRS, isIgnoredName, type Walker } from './walk.ts';

export interface WatchBatch {
  paths: string[];
  /** Ignore rules changed: only a full pass knows what is in and out now. */
  full: boolean;
}

export class RepoWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly queued = new Set<string>();
  private full = false;
  private timer: NodeJS.Timeout | undefined;
  private firstQueuedAt = 0;
  private readonly ignoredDirs: Set<string>;
  private closed = false;

  constructor(
    private readonly repo: string,
    private readonly walker: Walker,
    private readonly onBatch: (batch: WatchBatch) => void,
    private readonly logger?: Logger,
    private readonly debounceMs = 25,
    private readonly maxWaitMs = 120,
    ignoredDirs: readonly string[] = DEFAULT_IGNORED_DIRS,
  ) {
    this.ignoredDirs = new Set(ignoredDirs);
  }

  start(): void {
    for (const dir of this.walker.walk().dirs) this.watchDir(dir);
  }

  /** Paths seen but not yet handed on. */
  get pending(): number {
    return this.queued.size;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private watchDir(dir: string): void {
    if (this.closed || this.watchers.has(dir)) return;
    try {
      const w = watch(join(this.repo, dir), { persistent: false }, (_event, filename) => {
        if (filename) this.onEvent(dir ? `${dir}/${filename}` : String(filename));
      });
      w.on('error', () => {
        // The directory went away: its watcher is done; the deletion shows up as an event in the parent.
        w.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, w);
    } catch (err) {
      this.logger?.debug({ dir, err: (err as Error).message }, 'graph watcher could not watch a directory');
    }
  }

  private onEvent(path: string): void {
    const parts = path.split('/');
    if (parts.some((p) => this.ignoredDirs.has(p)) || this.walker.excluded(path)) return;
    const base = parts[parts.length - 1] ?? '';
    if (base === '.gitignore') {
      this.walker.resetRules();
      this.full = true;
    } else {
      // Gone, or not where it says (a symlink, even one into the repo): the indexer prunes whatever it
      // knew below the path, and nothing behind a link is watched or read.
      const isDir = this.walker.files.stat(path)?.isDirectory() ?? false;
      if (isDir) {
        for (const d of this.walker.walk(path).dirs) this.watchDir(d);
      } else if (this.watchers.has(path)) {
        this.watchers.get(path)?.close();
        this.watchers.delete(path);
      } else if (isIgnoredName(path, this.ignoredDirs) && !base.endsWith('tsconfig.json')) return;
      this.queued.add(path);
    }
    this.schedule();
  }

  private schedule(): void {
    const now = Date.now();
    if (!this.timer) this.firstQueuedAt = now;
    if (this.timer) clearTimeout(this.timer);
    // Trailing debounce, but never hold a change longer than maxWaitMs.
    const wait = Math.max(0, Math.min(this.debounceMs, this.firstQueuedAt + this.maxWaitMs - now));
    this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed) return;
    const batch: WatchBatch = { paths: [...this.queued], full: this.full };
    this.queued.clear();
    this.full = false;
    if (batch.paths.length || batch.full) this.onBatch(batch);
  }
}
