// The SQLite memory store (the embedded default; port.ts): a factory over statements prepared once per
// connection, every method synchronous. It speaks rows and plain values; ranking, defaults and error
// wording live in the service.
import type { Db } from '../db/open.ts';
import { WITHIN_BUDGET, withBudgetFunction, withinBudget } from '../search/budget.ts';
import { type FtsPlan, runPlan } from '../search/fts-query.ts';
import {
  type CandidateRow,
  contentHash,
  type EditedObservation,
  type ForgetDone,
  type ForgetRow,
  type HitRow,
  IMPACT_ORDER,
  type MemoryStore,
  type MemoryType,
  type NewObservation,
  type ObservationRow,
  type SearchFilters,
  type TimelineFilters,
  type TimelineRow,
} from './port.ts';

/** A row as SQLite holds it: the lists are JSON text. */
type StoredRow = Omit<ObservationRow, 'facts' | 'concepts' | 'files' | 'machine'> & {
  facts: string;
  concepts: string;
  files: string;
};
type StoredHit = Omit<HitRow, 'concepts' | 'machine'> & { concepts: string };

const parseList = (json: string) => JSON.parse(json) as string[];

const toRow = (r: StoredRow): ObservationRow => ({
  ...r,
  facts: parseList(r.facts),
  concepts: parseList(r.concepts),
  files: parseList(r.files),
});

const CANDIDATE_COLUMNS = 'o.id, o.confidence, o.impact, o.created_at, o.access_count';
const TIMELINE_COLUMNS =
  'o.id, o.title, o.memory_type, o.confidence, o.impact, o.task_id, o.agent_session, o.created_at';
const HIT_COLUMNS = 'id, title, narrative, memory_type, confidence, impact, concepts, task_id, created_at';

// The weights migration 004 stores as the tables' `rank`: a title hit counts three times a narrative hit,
// a concept twice.
const WEIGHTS = '3.0, 1.0, 2.0';

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

export function createSqliteMemoryStore(db: Db) {
  withBudgetFunction(db);
  // SQLite's lower() folds ASCII only; the query side is lower-cased with JS, so the text must be too.
  db.function('cos_fold', { deterministic: true }, (s: unknown) =>
    typeof s === 'string' ? s.toLowerCase() : s,
  );

  const byId = db.prepare<[number], StoredRow>('SELECT * FROM observations WHERE id = ?');
  const hitsByIds = db.prepare<[string], StoredHit>(
    `SELECT ${HIT_COLUMNS} FROM observations WHERE id IN (SELECT value FROM json_each(?))`,
  );
  const byHash = db.prepare<[string, string], StoredRow>(
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
  const touch = db.prepare<{ id: number; now: number }, StoredRow>(
    'UPDATE observations SET access_count = access_count + 1, last_accessed_at = @now WHERE id = @id RETURNING *',
  );
  const remove = db.prepare<[number], StoredRow>('DELETE FROM observations WHERE id = ? RETURNING *');
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
  // The port's text score is higher-is-better, bm25 lower-is-better: the statements select -bm25.
  const wordSearch = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, -bm25(observations_fts, ${WEIGHTS}) AS text_score
       FROM observations_fts JOIN observations o ON o.id = observations_fts.rowid
      WHERE observations_fts MATCH @match AND ${WITHIN_BUDGET} ${FILTERS}
      ORDER BY bm25(observations_fts, ${WEIGHTS}) LIMIT @pool`,
  );
  // Without filters the FTS index can rank and cut to the pool before any row is read; joining first makes
  // SQLite load every matching row (narratives included) just to sort them: 3x slower on common words.
  const wordSearchFast = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, -f.score AS text_score
       FROM (SELECT rowid, bm25(observations_fts, ${WEIGHTS}) AS score FROM observations_fts
              WHERE observations_fts MATCH @match AND ${WITHIN_BUDGET} ORDER BY score LIMIT @pool) f
       JOIN observations o ON o.id = f.rowid
      ORDER BY f.score`,
  );
  const substringSearchFast = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, -f.score AS text_score
       FROM (SELECT rowid, bm25(observations_tri, ${WEIGHTS}) AS score FROM observations_tri
              WHERE observations_tri MATCH @match AND ${WITHIN_BUDGET} ORDER BY score LIMIT @pool) f
       JOIN observations o ON o.id = f.rowid
      ORDER BY f.score`,
  );
  const substringSearch = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, -bm25(observations_tri, ${WEIGHTS}) AS text_score
       FROM observations_tri JOIN observations o ON o.id = observations_tri.rowid
      WHERE observations_tri MATCH @match AND ${WITHIN_BUDGET} ${FILTERS} ${SHORT_TERMS}
      ORDER BY bm25(observations_tri, ${WEIGHTS}) LIMIT @pool`,
  );
  const shortScan = db.prepare<Record<string, unknown>, CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS}, NULL AS text_score FROM observations o
      WHERE ${WITHIN_BUDGET} ${FILTERS} ${SHORT_TERMS}
      ORDER BY o.created_at DESC, o.id DESC LIMIT @pool`,
  );
  const timeline = db.prepare<Record<string, unknown>, TimelineRow>(
    `SELECT ${TIMELINE_COLUMNS} FROM observations o
      WHERE o.created_at >= @since
        AND (o.created_at < @before_at OR (o.created_at = @before_at AND o.id < @before_id))
        AND (@types IS NULL OR o.memory_type IN (SELECT value FROM json_each(@types)))
        AND (@session IS NULL OR o.agent_session = @session)
      ORDER BY o.created_at DESC, o.id DESC LIMIT @limit`,
  );
  const dayCounts = db.prepare<Record<string, unknown>, { day: number; count: number }>(
    `SELECT o.created_at / 86400000 AS day, count(*) AS count FROM observations o
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

  const searchWords = (match: string, f: SearchFilters): CandidateRow[] =>
    unfiltered(f)
      ? wordSearchFast.all({ match, pool: f.pool })
      : wordSearch.all({ match, ...filterParams(f) });

  /** Trigram MATCH for terms of three or more characters, instr() for the shorter ones. */
  const searchSubstring = (match: string | null, short: string[], f: SearchFilters): CandidateRow[] =>
    match === null
      ? shortScan.all({ short: JSON.stringify(short), ...filterParams(f) })
      : short.length === 0 && unfiltered(f)
        ? substringSearchFast.all({ match, pool: f.pool })
        : substringSearch.all({ match, short: JSON.stringify(short), ...filterParams(f) });

  const recordTx = db.transaction((o: NewObservation): { row: ObservationRow; merged: boolean } => {
    const hash = contentHash(o);
    const existing = byHash.get(o.session, hash);
    if (existing) {
      const files = [...new Set([...parseList(existing.files), ...o.files])];
      mergeInto.run({
        id: existing.id,
        confidence: Math.max(existing.confidence, o.confidence),
        impact: IMPACT_ORDER[o.impact] > IMPACT_ORDER[existing.impact] ? o.impact : existing.impact,
        files: JSON.stringify(files),
        task_id: existing.task_id ?? o.taskId,
      });
      return { row: toRow(byId.get(existing.id)!), merged: true };
    }
    const info = insert.run({
      ...columns(o),
      session: o.session,
      created_at: o.createdAt,
      hash,
    });
    return { row: toRow(byId.get(Number(info.lastInsertRowid))!), merged: false };
  });

  const updateTx = db.transaction(
    (
      id: number,
      edit: (current: ObservationRow) => EditedObservation,
    ): ObservationRow | 'duplicate' | undefined => {
      const current = byId.get(id);
      if (!current) return undefined;
      const o = edit(toRow(current));
      try {
        update.run({
          id,
          ...columns(o),
          hash: contentHash(o),
        });
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return 'duplicate';
        throw err;
      }
      return toRow(byId.get(id)!);
    },
  );

  const forgetTx = db.transaction(
    (id: number, reason: string, by: string, now: number): ForgetDone | null => {
      const row = remove.get(id);
      if (!row) return null;
      const info = audit.run({
        observation_id: row.id,
        content_hash: row.content_hash,
        memory_type: row.memory_type,
        agent_session: row.agent_session,
        reason,
        forgotten_by: by,
        forgotten_at: now,
      });
      return { auditId: Number(info.lastInsertRowid), row };
    },
  );

  const searchTx = db.transaction(
    (plan: FtsPlan, f: SearchFilters, budgetMs: number, page: (c: CandidateRow[]) => number[]) => {
      const { rows, mode } = withinBudget(db, budgetMs, 'memory', () =>
        runPlan<CandidateRow>(plan, (step) =>
          step.mode === 'words' ? searchWords(step.match, f) : searchSubstring(step.match, step.short, f),
        ),
      );
      const ids = page(rows);
      // In the same read transaction as the candidates, so every row of the page is still there.
      const hits: HitRow[] =
        ids.length === 0
          ? []
          : hitsByIds.all(JSON.stringify(ids)).map((h) => ({ ...h, concepts: parseList(h.concepts) }));
      return { mode, rows: hits };
    },
  );

  const store = {
    // IMMEDIATE: a deferred transaction that reads, then writes, fails at once with SQLITE_BUSY_SNAPSHOT
    // in WAL mode when another connection (the graph worker) committed in between; IMMEDIATE waits its turn.
    record: (o: NewObservation) => recordTx.immediate(o),

    get: (id: number): ObservationRow | undefined => {
      const row = byId.get(id);
      return row ? toRow(row) : undefined;
    },

    touch: (id: number, now: number): ObservationRow | undefined => {
      const row = touch.get({ id, now });
      return row ? toRow(row) : undefined;
    },

    search: (plan: FtsPlan, f: SearchFilters, budgetMs: number, page: (c: CandidateRow[]) => number[]) =>
      searchTx.deferred(plan, f, budgetMs, page),

    update: (id: number, edit: (current: ObservationRow) => EditedObservation) =>
      updateTx.immediate(id, edit),

    forget: (id: number, reason: string, by: string, now: number) => forgetTx.immediate(id, reason, by, now),

    forgets: (limit: number, offset: number): ForgetRow[] => forgets.all(limit, offset),

    timeline: (f: TimelineFilters): TimelineRow[] =>
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

    // One hub, one file: no other hub changes it.
    onRemoteChange: () => () => {},
  } satisfies MemoryStore;
  return store;
}

/** An observation's editable fields as the statements' parameters (lists as JSON). */
function columns(o: EditedObservation) {
  return {
    title: o.title,
    narrative: o.narrative,
    facts: JSON.stringify(o.facts),
    concepts: JSON.stringify(o.concepts),
    type: o.type,
    confidence: o.confidence,
    impact: o.impact,
    files: JSON.stringify(o.files),
    task_id: o.taskId,
  };
}
