// Task search: free text over titles and bodies (the index's FTS5 table), ranked by bm25.
import { ToolError } from '../errors.ts';
import type { Status } from './model.ts';
import type { BoardStore } from './store.ts';
import type { TasksDir } from './tasks-dir.ts';
import { MAX_PAGE } from './views.ts';

/** Turns free text into an FTS5 query of quoted terms (all must match; the last one as a prefix). */
function ftsQuery(text: string): string {
  const terms = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (terms.length === 0)
    throw new ToolError(
      'validation',
      'query has no words to search for; pass some words from a title or body',
    );
  return terms
    .slice(0, 32)
    .map((t, i, all) => `"${t}"${i === all.length - 1 ? '*' : ''}`)
    .join(' ');
}

export function createSearch({ store, dir }: { store: BoardStore; dir: TasksDir }) {
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
    const rows = store.search(
      ftsQuery(query),
      opts.status ?? null,
      opts.include_archive ?? opts.status === 'archive',
      limit + 1,
      offset,
    );
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
        snippet: r.snippet.replace(/\s+/g, ' ').trim(),
      })),
      next_offset: rows.length > limit ? offset + limit : null,
    };
  };
}
