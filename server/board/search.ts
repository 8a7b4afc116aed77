// Task search: free text over titles and bodies (the index's FTS5 table), ranked by bm25, within the
// search budget every corpus shares (server/search/).

import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';
import { withinBudget } from '../search/budget.ts';
import { independent, makeSnippet, phraseOf, type QueryTerm } from '../search/fts-query.ts';
import type { Status } from './model.ts';
import type { BoardStore } from './store.ts';
import type { TasksDir } from './tasks-dir.ts';
import { MAX_PAGE } from './views.ts';

/**
 * Turns free text into an FTS5 query of quoted terms (all must match; the last one as a prefix), with no
 * term another one implies (search/fts-query.ts says why that matters).
 */
function ftsQuery(text: string): { match: string; terms: QueryTerm[] } {
  const words = (text.match(/[\p{L}\p{N}_]+/gu) ?? []).slice(0, 32).map((w) => w.toLowerCase());
  if (words.length === 0)
    throw new ToolError(
      'validation',
      'query has no words to search for; pass some words from a title or body',
    );
  const phrases = words.map((w, i) => phraseOf([w], i === words.length - 1));
  return {
    match: independent(phrases, 'all')
      .map((p) => p.text)
      .join(' '),
    terms: words.map((w) => ({ words: [w], raw: w })),
  };
}

export function createSearch({
  store,
  dir,
  db,
  budgetMs,
}: {
  store: BoardStore;
  dir: TasksDir;
  db: Db;
  /** COS_SEARCH_BUDGET_MS (search/budget.ts). */
  budgetMs: number;
}) {
  return function search(
    query: string,
    opts: {
      status?: Status | undefined;
      include_archive?: boolean | undefined;
      limit?: number | undefined;
      offset?: number | undefined;
    } = {},
  ) {
    const limit = Math.min(Math.max(opts.limit ?? 20, 1), MAX_PAGE);
    const offset = Math.max(opts.offset ?? 0, 0);
    const { match, terms } = ftsQuery(query);
    const includeArchive = opts.include_archive ?? opts.status === 'archive';
    const { rows, archived } = withinBudget(db, budgetMs, 'task', () => {
      const rows = store.search(match, opts.status ?? null, includeArchive, limit + 1, offset);
      // Nothing outside the archive matched (a first page, no status filter that would exclude the
      // archive anyway): count what the default left out, so an empty answer says where the matches are.
      const left = rows.length === 0 && offset === 0 && !includeArchive && opts.status === undefined;
      return { rows, archived: left ? store.searchArchived(match) : 0 };
    });
    const page = rows.slice(0, limit);
    return {
      results: page.map((r) => ({
        id: r.key,
        title: r.title,
        status: r.status,
        kind: r.kind,
        priority: r.priority,
        path: dir.repoPath(r.path),
        // bm25 is lower-is-better; flip it so a bigger score reads as a better match.
        score: Number((-r.score).toPrecision(4)),
        snippet: makeSnippet(`${r.title}. ${r.body}`, terms, 160),
      })),
      next_offset: rows.length > limit ? offset + limit : null,
      ...(archived > 0 ? { archived_matches: archived } : {}),
    };
  };
}
