// The docs index repository: doc_files (one row per document) and doc_chunks (FTS-indexed sections),
// over statements prepared once.
import type { Db } from '../db/open.ts';
import { WITHIN_BUDGET, withBudgetFunction } from '../search/budget.ts';
import type { ChunkedDoc, DocFormat } from './chunker.ts';

export interface DocFileRow {
  path: string;
  format: DocFormat;
  doc_type: string;
  title: string | null;
  front_matter: string;
  front_matter_error: string | null;
  mtime_ms: number;
  size: number;
  content_hash: string;
  chunk_count: number;
  indexed_at: number;
}

export interface ChunkHitRow {
  id: number;
  path: string;
  chunk_index: number;
  heading_path: string;
  anchor: string | null;
  text: string;
  doc_type: string;
  bm25: number | null;
}

export interface DocFilters {
  prefix: string | null;
  docType: string | null;
  limit: number;
  offset: number;
}

export interface DocFileVersion {
  mtimeMs: number;
  size: number;
  hash: string;
  docType: string;
  indexedAt: number;
}

// The weights migration 004 stores as the tables' `rank`: a heading hit counts twice a body hit.
const WEIGHTS = '2.0, 1.0';

const FILTERS = `
  AND (@prefix IS NULL OR substr(c.path, 1, length(@prefix)) = @prefix)
  AND (@doc_type IS NULL OR c.doc_type = @doc_type)`;

const SHORT_TERMS = `
  AND NOT EXISTS (SELECT 1 FROM json_each(@short) s WHERE instr(cos_fold(c.heading || ' ' || c.text), s.value) = 0)`;

const COLUMNS = 'c.id, c.path, c.chunk_index, c.heading_path, c.anchor, c.text, c.doc_type';

// A front matter value equals the filter when its text form matches; for a list, when any item does.
// json_each over the top-level object yields one row per key, so no JSON path is built from user input.
const FRONT_MATTER_MATCH = `
  EXISTS (SELECT 1 FROM json_each(d.front_matter) f
           WHERE f.key = @key
             AND (@value IS NULL
                  OR (f.type NOT IN ('array', 'object') AND cos_fold(CASE f.type WHEN 'true' THEN 'true'
                        WHEN 'false' THEN 'false' ELSE CAST(f.value AS TEXT) END) = @value)
                  OR (f.type = 'array' AND EXISTS (SELECT 1 FROM json_each(f.value) e
                        WHERE cos_fold(CASE e.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                              ELSE CAST(e.value AS TEXT) END) = @value))))`;

export function createDocsStore(db: Db) {
  withBudgetFunction(db);
  db.function('cos_fold', { deterministic: true }, (s: unknown) =>
    typeof s === 'string' ? s.toLowerCase() : s,
  );

  const fileByPath = db.prepare<[string], DocFileRow>('SELECT * FROM doc_files WHERE path = ?');
  const allVersions = db.prepare<[], { path: string; mtime_ms: number; size: number; content_hash: string }>(
    'SELECT path, mtime_ms, size, content_hash FROM doc_files',
  );
  const pathsUnder = db.prepare<{ prefix: string }, { path: string }>(
    "SELECT path FROM doc_files WHERE @prefix = '' OR substr(path, 1, length(@prefix)) = @prefix",
  );
  const deleteChunks = db.prepare<[string]>('DELETE FROM doc_chunks WHERE path = ?');
  const deleteFile = db.prepare<[string]>('DELETE FROM doc_files WHERE path = ?');
  const upsertFile = db.prepare(
    `INSERT INTO doc_files (path, format, doc_type, title, front_matter, front_matter_error, mtime_ms, size,
                            content_hash, chunk_count, indexed_at)
     VALUES (@path, @format, @doc_type, @title, @front_matter, @front_matter_error, @mtime_ms, @size,
             @content_hash, @chunk_count, @indexed_at)
     ON CONFLICT (path) DO UPDATE SET format = excluded.format, doc_type = excluded.doc_type,
       title = excluded.title, front_matter = excluded.front_matter,
       front_matter_error = excluded.front_matter_error, mtime_ms = excluded.mtime_ms, size = excluded.size,
       content_hash = excluded.content_hash, chunk_count = excluded.chunk_count, indexed_at = excluded.indexed_at`,
  );
  const touchFile = db.prepare<[number, number, string]>(
    'UPDATE doc_files SET mtime_ms = ?, size = ? WHERE path = ?',
  );
  const insertChunk = db.prepare(
    `INSERT INTO doc_chunks (path, chunk_index, heading_path, heading, anchor, text, doc_type)
     VALUES (@path, @chunk_index, @heading_path, @heading, @anchor, @text, @doc_type)`,
  );
  // Ranked by a bm25() expression with the budget check in the WHERE clause, not by FTS5's `rank`: FTS5
  // would rank every match inside the table before SQLite could check the budget once (search/budget.ts).
  const wordSearch = db.prepare<Record<string, unknown>, ChunkHitRow>(
    `SELECT ${COLUMNS}, bm25(doc_chunks_fts, ${WEIGHTS}) AS bm25
       FROM doc_chunks_fts JOIN doc_chunks c ON c.id = doc_chunks_fts.rowid
      WHERE doc_chunks_fts MATCH @match AND ${WITHIN_BUDGET} ${FILTERS}
      ORDER BY bm25 LIMIT @limit OFFSET @offset`,
  );
  // Without filters the FTS index ranks and cuts to the page before any chunk row is read (see memory/store.ts).
  const wordSearchFast = db.prepare<Record<string, unknown>, ChunkHitRow>(
    `SELECT ${COLUMNS}, f.score AS bm25
       FROM (SELECT rowid, bm25(doc_chunks_fts, ${WEIGHTS}) AS score FROM doc_chunks_fts
              WHERE doc_chunks_fts MATCH @match AND ${WITHIN_BUDGET}
              ORDER BY score LIMIT @limit OFFSET @offset) f
       JOIN doc_chunks c ON c.id = f.rowid
      ORDER BY f.score`,
  );
  const substringSearchFast = db.prepare<Record<string, unknown>, ChunkHitRow>(
    `SELECT ${COLUMNS}, f.score AS bm25
       FROM (SELECT rowid, bm25(doc_chunks_tri, ${WEIGHTS}) AS score FROM doc_chunks_tri
              WHERE doc_chunks_tri MATCH @match AND ${WITHIN_BUDGET}
              ORDER BY score LIMIT @limit OFFSET @offset) f
       JOIN doc_chunks c ON c.id = f.rowid
      ORDER BY f.score`,
  );
  const substringSearch = db.prepare<Record<string, unknown>, ChunkHitRow>(
    `SELECT ${COLUMNS}, bm25(doc_chunks_tri, ${WEIGHTS}) AS bm25
       FROM doc_chunks_tri JOIN doc_chunks c ON c.id = doc_chunks_tri.rowid
      WHERE doc_chunks_tri MATCH @match AND ${WITHIN_BUDGET} ${FILTERS} ${SHORT_TERMS}
      ORDER BY bm25 LIMIT @limit OFFSET @offset`,
  );
  const shortScan = db.prepare<Record<string, unknown>, ChunkHitRow>(
    `SELECT ${COLUMNS}, NULL AS bm25 FROM doc_chunks c
      WHERE ${WITHIN_BUDGET} ${FILTERS} ${SHORT_TERMS}
      ORDER BY c.path, c.chunk_index LIMIT @limit OFFSET @offset`,
  );
  const headersBy = db.prepare<Record<string, unknown>, DocFileRow>(
    `SELECT d.* FROM doc_files d
      WHERE ${FRONT_MATTER_MATCH}
        AND (@prefix IS NULL OR substr(d.path, 1, length(@prefix)) = @prefix)
        AND (@doc_type IS NULL OR d.doc_type = @doc_type)
      ORDER BY d.path LIMIT @limit OFFSET @offset`,
  );
  const stats = db.prepare<[], { files: number; chunks: number }>(
    'SELECT (SELECT count(*) FROM doc_files) AS files, (SELECT count(*) FROM doc_chunks) AS chunks',
  );

  const replaceTx = db.transaction((path: string, doc: ChunkedDoc, v: DocFileVersion) => {
    deleteChunks.run(path);
    upsertFile.run({
      path,
      format: doc.format,
      doc_type: v.docType,
      title: doc.title,
      front_matter: JSON.stringify(doc.frontMatter),
      front_matter_error: doc.frontMatterError,
      mtime_ms: Math.trunc(v.mtimeMs),
      size: v.size,
      content_hash: v.hash,
      chunk_count: doc.chunks.length,
      indexed_at: v.indexedAt,
    });
    for (const c of doc.chunks) {
      insertChunk.run({
        path,
        chunk_index: c.index,
        heading_path: JSON.stringify(c.headingPath),
        heading: c.headingPath.join(' > '),
        anchor: c.anchor,
        text: c.text,
        doc_type: v.docType,
      });
    }
  });

  const removeTx = db.transaction((paths: string[]) => {
    let n = 0;
    for (const p of paths) {
      deleteChunks.run(p);
      n += deleteFile.run(p).changes;
    }
    return n;
  });

  const unfiltered = (f: DocFilters) => f.prefix === null && f.docType === null;

  const params = (f: DocFilters) => ({
    prefix: f.prefix,
    doc_type: f.docType,
    limit: f.limit,
    offset: f.offset,
  });

  return {
    file: (path: string): DocFileRow | undefined => fileByPath.get(path),
    versions: () => allVersions.all(),
    pathsUnder: (prefix: string): string[] => pathsUnder.all({ prefix }).map((r) => r.path),
    replace: (path: string, doc: ChunkedDoc, v: DocFileVersion) => replaceTx.immediate(path, doc, v),
    /** Same content, new mtime (a touch or checkout): no re-chunking. */
    touch: (path: string, mtimeMs: number, size: number) => touchFile.run(Math.trunc(mtimeMs), size, path),
    remove: (paths: string[]) => removeTx.immediate(paths),
    searchWords: (match: string, f: DocFilters): ChunkHitRow[] =>
      unfiltered(f)
        ? wordSearchFast.all({ match, limit: f.limit, offset: f.offset })
        : wordSearch.all({ match, ...params(f) }),
    searchSubstring: (match: string | null, short: string[], f: DocFilters): ChunkHitRow[] =>
      match === null
        ? shortScan.all({ short: JSON.stringify(short), ...params(f) })
        : short.length === 0 && unfiltered(f)
          ? substringSearchFast.all({ match, limit: f.limit, offset: f.offset })
          : substringSearch.all({ match, short: JSON.stringify(short), ...params(f) }),
    headersBy: (key: string, value: string | null, f: DocFilters): DocFileRow[] =>
      headersBy.all({ key, value, ...params(f) }),
    stats: () => stats.get()!,
  };
}

export type DocsStore = ReturnType<typeof createDocsStore>;
