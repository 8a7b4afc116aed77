// The observations repository: a factory over statements prepared once per connection. It speaks rows
// and plain values; ranking, defaults and error wording live in the service.
import { createHash } from 'node:crypto';
import type { Db } from '../db/open.ts';
import { WITHIN_BUDGET, withBudgetFunction } from '../search/budget.ts';
import type { Impact } from './ranking.ts';

export const MEMORY_TYPES = ['pattern', 'decision', 'pitfall', 'fact', 'preference'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
export const IMPACTS = ['low', 'medium', 'high', 'critical'] as const;

export interface ObservationRow {
  id: number;
  title: string;
  narrative: string;
  facts: string;
  concepts: string;
  memory_type: MemoryType;
  confidence: number;
  impact: Impact;
  files: string;
  task_id: string | null;
  agent_session: string;
  created_at: number;
  last_accessed_at: number | null;
  access_count: number;
  merged_count: number;
  content_hash: string;
}

/**
 * A search candidate: what the ranking reads, and no more. A search ranks up to 200 candidates to show
 * a page of ten; the rows of the page are read afterwards (byIds), so the other 190 never carry their
 * narratives, facts and files across into JavaScript.
 */
export interface CandidateRow
  extends Pick<ObservationRow, 'id' | 'confidence' | 'impact' | 'created_at' | 'access_count'> {
  /** Null for rows found by a substring scan, which has no bm25. */
  bm25: number | null;
}

const CANDIDATE_COLUMNS = 'o.id, o.confidence, o.impact, o.created_at, o.access_count';

export interface NewObservation {
  title: string;
  narrative: string;
  facts: string[];
  concepts: string[];
  type: MemoryType;
  confidence: number;
  impact: Impact;
  files: string[];
  taskId: string | null;
  session: string;
  createdAt: number;
}

export interface SearchFilters {
  types: MemoryType[] | null;
  minConfidence: number;
  createdAfter: number;
  taskId: string | null;
  session: string | null;
  pool: number;
}

export interface TimelineFilters {
  since: number;
  beforeAt: number;
  beforeId: number;
  types: MemoryType[] | null;
  session: string | null;
  limit: number;
}

export interface ForgetRow {
  id: number;
  observation_id: number;
  content_hash: string;
  memory_type: string;
  agent_session: string;
  reason: string;
  forgotten_by: string;
  forgotten_at: number;
}

/**
 * What makes two observations "the same": type and text. Confidence, impact, files and task are metadata
 * that a duplicate merges into the first record rather than a reason to keep two.
 */
export function contentHash(
  o: Pick<NewObservation, 'type' | 'title' | 'narrative' | 'facts' | 'concepts'>,
): string {
  return createHash('sha256')
    .update(JSON.stringify([o.type, o.title.trim(), o.narrative.trim(), o.facts, o.concepts]))
    .digest('hex');
}

// The weights migration 004 stores as the tables' `rank`: a title hit counts three times a narrative hit,
// a concept twice.
const WEIGHTS = '3.0, 1.0, 2.0';

const IMPACT_ORDER: Record<Impact, number> = { low: 0, medium: 1, high: 2, critical: 3 };

const FILTERS = `
  AND (@types IS NULL OR o.memory_type IN (SELECT value FROM json_each(@types)))
  AND o.confidence >= @min_confidence
  AND o.created_at >= @created_after
  AND (@task_id IS NULL OR o.task_id = @task_id)
  AND (@session IS NULL OR o.agent_session = @session)`;

// Short (under three characters) terms cannot use the trigram index; every one must still occur.
const SHORT_TERMS = `
  AND NOT EXISTS (SELECT 1 FROM json_each(@short) s
                  WHERE instr(cos_fold(o.title || ' ' || o.narrative || ' ' || o.concepts), s.value) = 0)`;

export function createMemoryStore(db: Db) {
  withBudgetFunction(db);
  // SQLite's lower() folds ASCII only; the query side is lower-cased with JS, so the text must be too.
  db.function('cos_fold', { deterministic: true }, (s: unknown) =>
    typeof s === 'string' ? s.toLowerCase() : s,
  );

  const byId = db.prepare<[number], ObservationRow>('SELECT * FROM observations WHERE id = ?');
  const byIds = db.prepare<[string], ObservationRow>(
    'SELECT * FROM observations WHERE id IN (SELECT value FROM json_each(?))',
  );
  const byHash = db.prepare<[string, string], ObservationRow>(
    'SELECT * FROM observations WHERE agent_session = ? AND content_hash = ?',
  );
  const insert = db.prepare(
    `INSERT INTO observations (title, narrative, facts, concepts, memory_type, confidence, impact, files, task_id,
                               agent_session, created_at, content_hash)
     VALUES (@title, @narrative, @facts, @concepts, @type, @confidence, @impact, @files, @task_id,
             @session, @created_at, @hash)`,
  );
  const mergeInto = db.prepare(
    `UPDATE observations SET merged_count = merged_count + 1, confidence = @confidence, impact = @impact,
            files = @files, task_id = @task_id WHERE id = @id`,
  );
  const update = db.prepare(
    `UPDATE observations SET title = @title, narrative = @narrative, facts = @facts, concepts = @concepts,
            memory_type = @type, confidence = @confidence, impact = @impact, files = @files, task_id = @task_id,
            content_hash = @hash WHERE id = @id`,
  );
  const touch = db.prepare(
    'UPDATE observations SET access_count = access_count + 1, last_accessed_at = @now WHERE id = @id',
  );
  const remove = db.prepare<[number]>('DELETE FROM observations WHERE id = ?');
  const audit = db.prepare(
    `INSERT INTO observation_forgets (observation_id, content_hash, memory_type, agent_session, reason, forgotten_by,
                                      forgotten_at)
     VALUES (@observation_id, @content_hash, @memory_type, @agent_session, @reason, @forgotten_by, @forgotten_at)`,
  );
  const forgets = db.prepare<[number, number], ForgetRow>(
    'SELECT * FROM observation_forgets ORDER BY forgotten_at DESC, id DESC LIMIT ? OFFSET ?',
  );
  // Ranked by a bm25() expression with the budget check in the WHERE clause, not by FTS5's `rank`: FTS5
  // would rank every match inside the table before SQLite could check the budget once (search/budget.ts).
  const wordSearch = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, bm25(observations_fts, ${WEIGHTS}) AS bm25
       FROM observations_fts JOIN observations o ON o.id = observations_fts.rowid
      WHERE observations_fts MATCH @match AND ${WITHIN_BUDGET} ${FILTERS}
      ORDER BY bm25 LIMIT @pool`,
  );
  // Without filters the FTS index can rank and cut to the pool before any row is read; joining first makes
  // SQLite load every matching row (narratives included) just to sort them: 3x slower on common words.
  const wordSearchFast = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, f.score AS bm25
       FROM (SELECT rowid, bm25(observations_fts, ${WEIGHTS}) AS score FROM observations_fts
              WHERE observations_fts MATCH @match AND ${WITHIN_BUDGET} ORDER BY score LIMIT @pool) f
       JOIN observations o ON o.id = f.rowid
      ORDER BY f.score`,
  );
  const substringSearchFast = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, f.score AS bm25
       FROM (SELECT rowid, bm25(observations_tri, ${WEIGHTS}) AS score FROM observations_tri
              WHERE observations_tri MATCH @match AND ${WITHIN_BUDGET} ORDER BY score LIMIT @pool) f
       JOIN observations o ON o.id = f.rowid
      ORDER BY f.score`,
  );
  const substringSearch = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, bm25(observations_tri, ${WEIGHTS}) AS bm25
       FROM observations_tri JOIN observations o ON o.id = observations_tri.rowid
      WHERE observations_tri MATCH @match AND ${WITHIN_BUDGET} ${FILTERS} ${SHORT_TERMS}
      ORDER BY bm25 LIMIT @pool`,
  );
  const shortScan = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, NULL AS bm25 FROM observations o
      WHERE ${WITHIN_BUDGET} ${FILTERS} ${SHORT_TERMS}
      ORDER BY o.created_at DESC, o.id DESC LIMIT @pool`,
  );
  const timeline = db.prepare<Record<string, unknown>, ObservationRow>(
    `SELECT * FROM observations o
      WHERE o.created_at >= @since
        AND (o.created_at < @before_at OR (o.created_at = @before_at AND o.id < @before_id))
        AND (@types IS NULL OR o.memory_type IN (SELECT value FROM json_each(@types)))
        AND (@session IS NULL OR o.agent_session = @session)
      ORDER BY o.created_at DESC, o.id DESC LIMIT @limit`,
  );
  const dayCounts = db.prepare<Record<string, unknown>, { day: string; count: number }>(
    `SELECT strftime('%Y-%m-%d', o.created_at / 1000, 'unixepoch') AS day, count(*) AS count FROM observations o
      WHERE o.created_at >= @since
        AND (@types IS NULL OR o.memory_type IN (SELECT value FROM json_each(@types)))
        AND (@session IS NULL OR o.agent_session = @session)
      GROUP BY day ORDER BY day DESC`,
  );
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM observations');

  const unfiltered = (f: SearchFilters) =>
    f.types === null &&
    f.minConfidence <= 0 &&
    f.createdAfter <= 0 &&
    f.taskId === null &&
    f.session === null;

  const filterParams = (f: SearchFilters) => ({
    types: f.types === null ? null : JSON.stringify(f.types),
    min_confidence: f.minConfidence,
    created_after: f.createdAfter,
    task_id: f.taskId,
    session: f.session,
    pool: f.pool,
  });

  const recordTx = db.transaction((o: NewObservation): { row: ObservationRow; merged: boolean } => {
    const hash = contentHash(o);
    const existing = byHash.get(o.session, hash);
    if (existing) {
      const files = [...new Set([...(JSON.parse(existing.files) as string[]), ...o.files])];
      mergeInto.run({
        id: existing.id,
        confidence: Math.max(existing.confidence, o.confidence),
        impact: IMPACT_ORDER[o.impact] > IMPACT_ORDER[existing.impact] ? o.impact : existing.impact,
        files: JSON.stringify(files),
        task_id: existing.task_id ?? o.taskId,
      });
      return { row: byId.get(existing.id)!, merged: true };
    }
    const info = insert.run({
      title: o.title,
      narrative: o.narrative,
      facts: JSON.stringify(o.facts),
      concepts: JSON.stringify(o.concepts),
      type: o.type,
      confidence: o.confidence,
      impact: o.impact,
      files: JSON.stringify(o.files),
      task_id: o.taskId,
      session: o.session,
      created_at: o.createdAt,
      hash,
    });
    return { row: byId.get(Number(info.lastInsertRowid))!, merged: false };
  });

  const forgetTx = db.transaction(
    (
      id: number,
      reason: string,
      by: string,
      now: number,
    ): { row: ObservationRow; auditId: number } | null => {
      const row = byId.get(id);
      if (!row) return null;
      remove.run(id);
      const info = audit.run({
        observation_id: row.id,
        content_hash: row.content_hash,
        memory_type: row.memory_type,
        agent_session: row.agent_session,
        reason,
        forgotten_by: by,
        forgotten_at: now,
      });
      return { row, auditId: Number(info.lastInsertRowid) };
    },
  );

  return {
    /** Inserts, or folds an exact duplicate from the same session into the first record. */
    // IMMEDIATE: a deferred transaction that reads, then writes, fails at once with SQLITE_BUSY_SNAPSHOT
    // in WAL mode when another connection (the graph worker) committed in between; IMMEDIATE waits its turn.
    record: (o: NewObservation) => recordTx.immediate(o),

    get: (id: number): ObservationRow | undefined => byId.get(id),

    /** The rows of these ids that exist, in no particular order. */
    getMany: (ids: number[]): ObservationRow[] => byIds.all(JSON.stringify(ids)),

    /** Runs `fn` in one read transaction, so the queries in it see the same data. */
    reading: <T>(fn: () => T): T => db.transaction(fn).deferred(),

    /** Marks a read: feeds the access factor of the ranking. */
    touch: (id: number, now: number) => touch.run({ id, now }).changes > 0,

    /** Replaces the editable fields. Throws SQLITE_CONSTRAINT_UNIQUE when the edit duplicates another record. */
    update: (id: number, o: Omit<NewObservation, 'session' | 'createdAt'>) =>
      update.run({
        id,
        title: o.title,
        narrative: o.narrative,
        facts: JSON.stringify(o.facts),
        concepts: JSON.stringify(o.concepts),
        type: o.type,
        confidence: o.confidence,
        impact: o.impact,
        files: JSON.stringify(o.files),
        task_id: o.taskId,
        hash: contentHash(o),
      }).changes > 0,

    /** Deletes and writes the audit row in one transaction; null when there was nothing to delete. */
    forget: (id: number, reason: string, by: string, now: number) => forgetTx.immediate(id, reason, by, now),

    forgets: (limit: number, offset: number): ForgetRow[] => forgets.all(limit, offset),

    searchWords: (match: string, f: SearchFilters): CandidateRow[] =>
      unfiltered(f)
        ? wordSearchFast.all({ match, pool: f.pool })
        : wordSearch.all({ match, ...filterParams(f) }),

    /** Trigram MATCH for terms of three or more characters, instr() for the shorter ones. */
    searchSubstring: (match: string | null, short: string[], f: SearchFilters): CandidateRow[] =>
      match === null
        ? shortScan.all({ short: JSON.stringify(short), ...filterParams(f) })
        : short.length === 0 && unfiltered(f)
          ? substringSearchFast.all({ match, pool: f.pool })
          : substringSearch.all({ match, short: JSON.stringify(short), ...filterParams(f) }),

    timeline: (f: TimelineFilters): ObservationRow[] =>
      timeline.all({
        since: f.since,
        before_at: f.beforeAt,
        before_id: f.beforeId,
        types: f.types === null ? null : JSON.stringify(f.types),
        session: f.session,
        limit: f.limit,
      }),

    dayCounts: (since: number, types: MemoryType[] | null, session: string | null) =>
      dayCounts.all({ since, types: types === null ? null : JSON.stringify(types), session }),

    count: () => count.get()!.n,
  };
}

export type MemoryStore = ReturnType<typeof createMemoryStore>;
