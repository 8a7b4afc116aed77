// Docs search over the repository's own documentation. start() indexes what changed since the last run and
// (optionally) watches the walked directories; refresh(paths) is the entry point for any other watcher (the
// graph's, when it exists) to report changes. Every index update runs on one queue, so a full scan and a
// refresh never interleave their writes.
import { type FSWatcher, watch } from 'node:fs';
import type { Logger } from 'pino';
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { DEFAULT_SEARCH_BUDGET_MS, withinBudget } from '../search/budget.ts';
import { type MatchMode, makeSnippet, planQuery, runPlan } from '../search/fts-query.ts';
import { createIndexer, type IndexReport } from './indexer.ts';
import { type ChunkHitRow, createDocsStore, type DocFileRow } from './store.ts';

declare module '../hub-services.ts' {
  interface HubServices {
    docs: DocsService;
  }
}

export interface DocsServiceOptions {
  db: Db;
  /** Milliseconds one search may hold the thread (COS_SEARCH_BUDGET_MS); see search/budget.ts. */
  searchBudgetMs?: number;
  repo: string;
  stateDir: string;
  /** Directories left out besides the state directory (the board's tasks directory). */
  excludedDirs?: string[];
  logger?: Logger;
  /** Where index progress is published (`index-progress`, layer docs) for the live stream. */
  events?: EventBus;
  /** Watch the walked directories with fs.watch (default true). Off in tests that drive refresh() themselves. */
  watch?: boolean;
  /** Milliseconds to gather change events before re-indexing (default 200). */
  debounceMs?: number;
  now?: () => number;
}

export interface DocHit {
  path: string;
  heading_path: string[];
  anchor: string | null;
  chunk_index: number;
  doc_type: string;
  snippet: string;
  score: number;
}

export interface DocSearchInput {
  query: string;
  path_prefix?: string;
  doc_type?: string;
  limit?: number;
  offset?: number;
}

export interface DocHeader {
  path: string;
  title: string | null;
  doc_type: string;
  format: string;
  front_matter: Record<string, unknown>;
  front_matter_error: string | null;
  chunk_count: number;
  indexed_at: string;
}

export type IndexState = 'idle' | 'indexing' | 'ready';

/** Watching more directories than this risks the inotify limit; the rest rely on refresh(). */
const MAX_WATCHED_DIRS = 4096;

/** Repository-relative, forward slashes, no `..`: the only shape a doc path may have in a query. */
export function normalizeDocPath(input: string, what = 'path'): string {
  const p = input
    .trim()
    .replaceAll('\\', '/')
    .replace(/^(\.\/)+/, '');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.includes('\0') || p.split('/').includes('..')) {
    throw new ToolError('validation', `${what} must be repository-relative without "..", like docs/guide.md`);
  }
  return p.replace(/\/+$/, '');
}

/**
 * A path prefix matches by string, so `docs/` (kept with its slash) excludes `docs-old/` while `doc` takes
 * both; `.` or an empty prefix means the whole repository.
 */
function normalizePrefix(input: string | undefined): string | null {
  if (input === undefined) return null;
  const p = normalizeDocPath(input, 'path_prefix');
  if (p === '' || p === '.') return null;
  return /[\\/]\s*$/.test(input) ? `${p}/` : p;
}

const toHeader = (row: DocFileRow): DocHeader => ({
  path: row.path,
  title: row.title,
  doc_type: row.doc_type,
  format: row.format,
  front_matter: JSON.parse(row.front_matter) as Record<string, unknown>,
  front_matter_error: row.front_matter_error,
  chunk_count: row.chunk_count,
  indexed_at: new Date(row.indexed_at).toISOString(),
});

export function createDocsService(options: DocsServiceOptions) {
  const store = createDocsStore(options.db);
  const now = options.now ?? Date.now;
  const budgetMs = options.searchBudgetMs ?? DEFAULT_SEARCH_BUDGET_MS;
  const indexer = createIndexer({
    repo: options.repo,
    stateDir: options.stateDir,
    ...(options.excludedDirs ? { excludedDirs: options.excludedDirs } : {}),
    store,
    now,
  });
  const log = options.logger;
  const watchers = new Map<string, FSWatcher>();
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let state: IndexState = 'idle';
  let closed = false;
  const abort = new AbortController();

  function publish(phase: 'started' | 'ready' | 'updated', report?: IndexReport) {
    options.events?.publish('index-progress', {
      layer: 'docs',
      phase,
      ...(report ? { indexed: report.indexed, removed: report.removed } : {}),
      ...store.stats(),
    });
  }

  /** Runs index work one job at a time; a failed job is logged and does not stop the next. */
  function enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = queue.then(job);
    queue = run.catch((err: unknown) => log?.warn({ err }, 'docs index update failed'));
    return run;
  }

  function watchDirs(dirs: string[]) {
    if (options.watch === false || closed) return;
    for (const dir of dirs) {
      if (watchers.has(dir)) continue;
      if (watchers.size >= MAX_WATCHED_DIRS) {
        log?.warn(
          { limit: MAX_WATCHED_DIRS },
          'docs watcher limit reached; further directories are not watched',
        );
        return;
      }
      try {
        const w = watch(
          dir === '' ? options.repo : `${options.repo}/${dir}`,
          { persistent: false },
          (_e, name) => {
            const rel = name === null ? dir : dir === '' ? String(name) : `${dir}/${String(name)}`;
            pending.add(rel);
            if (timer) clearTimeout(timer);
            timer = setTimeout(flush, options.debounceMs ?? 200);
          },
        );
        w.on('error', () => unwatch(dir));
        watchers.set(dir, w);
      } catch (err) {
        log?.warn({ err, dir }, 'docs watcher could not watch a directory');
      }
    }
  }

  function unwatch(prefix: string) {
    for (const [dir, w] of watchers) {
      if (dir === prefix || dir.startsWith(`${prefix}/`)) {
        w.close();
        watchers.delete(dir);
      }
    }
  }

  function flush() {
    timer = null;
    const paths = [...pending];
    pending.clear();
    if (paths.length > 0) void service.refresh(paths).catch(() => {});
  }

  async function refreshNow(paths: string[]): Promise<IndexReport> {
    const total: IndexReport = { indexed: 0, unchanged: 0, removed: 0, dirs: [] };
    const rels = [
      ...new Set(paths.map((p) => indexer.toRel(p.startsWith('/') ? p : `${options.repo}/${p}`))),
    ];
    if (rels.some((r) => r === '.gitignore' || r.endsWith('/.gitignore'))) {
      // Rules changed: what is ignored may have changed anywhere below, so walk everything again.
      indexer.clearIgnoreCache();
      return fullScan();
    }
    for (const rel of rels) {
      if (rel.startsWith('..')) continue;
      const r = await indexer.refreshPath(rel);
      total.indexed += r.indexed;
      total.unchanged += r.unchanged;
      total.removed += r.removed;
      total.dirs.push(...r.dirs);
      if (r.dirs.length === 0 && r.removed > 0) unwatch(rel);
    }
    watchDirs(total.dirs);
    if (total.indexed > 0 || total.removed > 0) publish('updated', total);
    return total;
  }

  async function fullScan(): Promise<IndexReport> {
    const report = await indexer.scan('', abort.signal);
    watchDirs(report.dirs);
    return report;
  }

  function search(input: DocSearchInput): { results: DocHit[]; mode: MatchMode; has_more: boolean } {
    const plan = planQuery(input.query);
    const limit = input.limit ?? 10;
    const filters = {
      prefix: normalizePrefix(input.path_prefix),
      docType: input.doc_type ?? null,
      // One extra row says whether there is a next page without counting every match.
      limit: limit + 1,
      offset: input.offset ?? 0,
    };
    const { rows, mode } = withinBudget(options.db, budgetMs, 'docs', () =>
      runPlan<ChunkHitRow>(plan, (step) =>
        step.mode === 'words'
          ? store.searchWords(step.match, filters)
          : store.searchSubstring(step.match, step.short, filters),
      ),
    );
    const page = rows.slice(0, limit);
    return {
      // bm25 is negative and lower is better; the score is its magnitude, higher is better, like memory's.
      results: page.map((r) => ({
        path: r.path,
        heading_path: JSON.parse(r.heading_path) as string[],
        anchor: r.anchor,
        chunk_index: r.chunk_index,
        doc_type: r.doc_type,
        snippet: makeSnippet(r.text, plan.terms),
        score: r.bm25 === null ? 0 : Math.round(-r.bm25 * 10_000) / 10_000,
      })),
      mode,
      has_more: rows.length > limit,
    };
  }

  const service = {
    /** Indexes what changed since the last run, then watches. Resolves when the first scan is done. */
    start(): Promise<IndexReport> {
      state = 'indexing';
      publish('started');
      return enqueue(async () => {
        const started = now();
        const report = await fullScan();
        state = 'ready';
        publish('ready', report);
        log?.info(
          {
            indexed: report.indexed,
            unchanged: report.unchanged,
            removed: report.removed,
            ms: now() - started,
          },
          'docs index ready',
        );
        return report;
      });
    },

    async close(): Promise<void> {
      closed = true;
      abort.abort();
      if (timer) clearTimeout(timer);
      timer = null;
      for (const w of watchers.values()) w.close();
      watchers.clear();
      await queue.catch(() => {});
    },

    /** Re-index these paths (absolute, or relative to the repository; files or directories, present or gone). */
    refresh(paths: string[]): Promise<IndexReport> {
      return enqueue(() => refreshNow(paths));
    },

    /** Walk the whole repository again (a new .gitignore, a checkout). */
    reindex(): Promise<IndexReport> {
      return enqueue(() => {
        indexer.clearIgnoreCache();
        return fullScan();
      });
    },

    /** Settles when every queued index update has run (tests, shutdown). */
    idle: (): Promise<void> => queue.then(() => undefined),

    search,

    header(path: string): DocHeader {
      const rel = normalizeDocPath(path);
      const row = store.file(rel);
      if (!row) {
        throw new ToolError(
          'not_found',
          `no indexed document at ${rel}: find documents with cos_doc_search, or check it is not git-ignored`,
        );
      }
      return toHeader(row);
    },

    headersBy(input: {
      key: string;
      value?: string;
      path_prefix?: string;
      doc_type?: string;
      limit?: number;
      offset?: number;
    }): { documents: DocHeader[]; has_more: boolean } {
      const limit = input.limit ?? 50;
      const rows = store.headersBy(input.key, input.value === undefined ? null : input.value.toLowerCase(), {
        prefix: normalizePrefix(input.path_prefix),
        docType: input.doc_type ?? null,
        limit: limit + 1,
        offset: input.offset ?? 0,
      });
      return { documents: rows.slice(0, limit).map(toHeader), has_more: rows.length > limit };
    },

    status: () => ({ state, watched_dirs: watchers.size, ...store.stats() }),
  };
  return service;
}

export type DocsService = ReturnType<typeof createDocsService>;
