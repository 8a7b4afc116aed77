// The PostgreSQL memory store (port.ts): the team's observations, shared by every hub of the team
// (migration 003-memory.sql). Every write is one transaction that also appends the feed entry telling
// the other hubs, so the news and the change commit together; an exact duplicate merges through
// INSERT … ON CONFLICT, never a read-then-write. Searches run in one read-only snapshot under the search
// budget as statement_timeout: the work is the server's, and no query outlives the budget.
import { ToolError } from '../errors.ts';
import type { FtsPlan, MatchMode } from '../search/fts-query.ts';
import { isStatementTimeout, type Queryable, STATEMENT_TIMEOUT_MS } from '../team/database.ts';
import type { Team } from '../team/team.ts';
import { pgQueries, RANK_NORMALIZATION, RANK_WEIGHTS, searchText, searchVector } from './pg-text.ts';
import {
  type CandidateRow,
  contentHash,
  type EditedObservation,
  type ForgetDone,
  type ForgetRow,
  type HitRow,
  type MemoryChange,
  type MemoryStore,
  type MemoryType,
  memoryChange,
  type NewObservation,
  type ObservationRow,
  type SearchFilters,
  type TimelineFilters,
  type TimelineRow,
} from './port.ts';

/** The feed entries of memory writes (team_log.kind). */
export const MEMORY_FEED_KIND = 'memory';

/**
 * How many of the newest matches ts_rank scores. ts_rank reads each match's whole vector, so ranking
 * every match of a common word would cost in proportion to the team's memory; the newest 1,000 bound it
 * (the blend then prefers recent records anyway).
 */
export const MATCH_POOL = 1000;
/** How many of the newest records the substring fallback reads (it has no index: see pg-text.ts). */
export const SCAN_ROWS = 5000;
/** The search budget stays under the pool's statement timeout, so a slow search says it ran over budget. */
const MAX_BUDGET_MS = STATEMENT_TIMEOUT_MS - 1000;

const ROW_COLUMNS =
  'id, machine, memory_type, confidence, impact, created_at, last_accessed_at, access_count, merged_count, ' +
  'agent_session, task_id, content_hash, title, concepts, files, facts, narrative';
const CANDIDATE_COLUMNS = 'id, confidence, impact, created_at, access_count';

/** bigint comes back from pg as text; ids and ms times fit a double exactly. */
type Big = string | number;
type PgObservation = Omit<ObservationRow, 'id' | 'created_at' | 'last_accessed_at'> & {
  id: Big;
  created_at: Big;
  last_accessed_at: Big | null;
};

const toRow = (r: PgObservation): ObservationRow => ({
  ...r,
  id: Number(r.id),
  created_at: Number(r.created_at),
  last_accessed_at: r.last_accessed_at === null ? null : Number(r.last_accessed_at),
});

type PgCandidate = Omit<CandidateRow, 'id' | 'created_at'> & { id: Big; created_at: Big };
const toCandidate = (r: PgCandidate): CandidateRow => ({
  ...r,
  id: Number(r.id),
  created_at: Number(r.created_at),
});

/** An id the schema lets through but bigint cannot hold names no record. */
const validId = (id: number) => Number.isSafeInteger(id) && id > 0;

/** The budget spent: the same answer a SQLite search gives (search/budget.ts). */
function overBudget(budgetMs: number): ToolError {
  return new ToolError(
    'transient',
    `this memory search needs more than its ${budgetMs} ms budget (COS_SEARCH_BUDGET_MS), so it was stopped to keep the hub answering; use fewer or longer words, or a filter`,
  );
}

/** SQL conditions for the filters that are set, their values appended to `params`. */
function filterSql(f: Omit<SearchFilters, 'pool'>, params: unknown[]): string {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  let sql = '';
  if (f.types !== null) sql += ` AND memory_type = ANY(${add(f.types)}::text[])`;
  if (f.minConfidence > 0) sql += ` AND confidence >= ${add(f.minConfidence)}`;
  if (f.createdAfter > 0) sql += ` AND created_at >= ${add(f.createdAfter)}`;
  if (f.taskId !== null) sql += ` AND task_id = ${add(f.taskId)}`;
  if (f.session !== null) sql += ` AND agent_session = ${add(f.session)}`;
  return sql;
}

export function createPgMemoryStore(team: Team) {
  const { db, feed } = team;
  const key = team.key;

  const announce = (q: Queryable, change: MemoryChange) =>
    feed.append(q, [{ kind: MEMORY_FEED_KIND, body: change }]);

  async function ranked(q: Queryable, tsquery: string, f: SearchFilters): Promise<CandidateRow[]> {
    const params: unknown[] = [key, tsquery];
    const where = filterSql(f, params);
    params.push(f.pool);
    const { rows } = await q.query<PgCandidate>(
      `SELECT ${CANDIDATE_COLUMNS}, ts_rank('${RANK_WEIGHTS}'::float4[], search, $2::tsquery, ${RANK_NORMALIZATION}) AS text_score
         FROM (SELECT ${CANDIDATE_COLUMNS}, search FROM memory_observations
                WHERE team = $1 AND search @@ $2::tsquery ${where}
                ORDER BY created_at DESC, id DESC LIMIT ${MATCH_POOL}) m
        ORDER BY text_score DESC, created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toCandidate);
  }

  async function scan(q: Queryable, substrings: string[], f: SearchFilters): Promise<CandidateRow[]> {
    if (substrings.length === 0) return [];
    const params: unknown[] = [key, substrings];
    const where = filterSql(f, params);
    params.push(f.pool);
    const { rows } = await q.query<PgCandidate>(
      `SELECT ${CANDIDATE_COLUMNS}, NULL::float8 AS text_score
         FROM (SELECT ${CANDIDATE_COLUMNS}, search_text FROM memory_observations
                WHERE team = $1 ${where}
                ORDER BY created_at DESC, id DESC LIMIT ${SCAN_ROWS}) s
        WHERE NOT EXISTS (SELECT 1 FROM unnest($2::text[]) t WHERE strpos(s.search_text, t) = 0)
        ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toCandidate);
  }

  /** planQuery's steps (fts-query.ts runPlan), each on PostgreSQL's side. */
  async function candidates(
    q: Queryable,
    plan: FtsPlan,
    f: SearchFilters,
    step: () => Promise<void>,
  ): Promise<{ rows: CandidateRow[]; mode: MatchMode }> {
    const queries = pgQueries(plan);
    const tries: [MatchMode, () => Promise<CandidateRow[]>][] = [];
    const ranking = (tsquery: string | null) => async () => (tsquery === null ? [] : ranked(q, tsquery, f));
    if (plan.cjk) tries.push(['substring', ranking(queries.cjk)]);
    else tries.push(['words', ranking(queries.words)], ['any_words', ranking(queries.anyWords)]);
    tries.push(['substring', () => scan(q, queries.substrings, f)]);
    for (const [mode, run] of tries) {
      await step();
      const rows = await run();
      if (rows.length > 0) return { rows, mode };
    }
    return { rows: [], mode: 'substring' };
  }

  const store = {
    record: (o: NewObservation) =>
      db.transaction(async (q) => {
        const { rows } = await q.query<PgObservation & { merged: boolean }>(
          `INSERT INTO memory_observations AS o
                  (team, machine, memory_type, confidence, impact, created_at, agent_session, task_id, content_hash,
                   title, concepts, files, facts, narrative, search, search_text)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::tsvector, $16)
           ON CONFLICT (team, agent_session, content_hash) DO UPDATE SET
             merged_count = o.merged_count + 1,
             confidence = GREATEST(o.confidence, EXCLUDED.confidence),
             impact = CASE WHEN array_position(ARRAY['low', 'medium', 'high', 'critical'], EXCLUDED.impact)
                              > array_position(ARRAY['low', 'medium', 'high', 'critical'], o.impact)
                           THEN EXCLUDED.impact ELSE o.impact END,
             files = o.files || ARRAY(SELECT f FROM unnest(EXCLUDED.files) WITH ORDINALITY AS u(f, n)
                                       WHERE f <> ALL (o.files) ORDER BY n),
             task_id = COALESCE(o.task_id, EXCLUDED.task_id)
           RETURNING ${ROW_COLUMNS}, (xmax <> 0) AS merged`,
          [
            key,
            team.machine,
            o.type,
            o.confidence,
            o.impact,
            o.createdAt,
            o.session,
            o.taskId,
            contentHash(o),
            o.title,
            o.concepts,
            o.files,
            o.facts,
            o.narrative,
            searchVector([
              [o.title, 'A'],
              [o.concepts.join(' '), 'B'],
              [o.narrative, 'C'],
            ]),
            searchText(o.title, o.concepts, o.narrative),
          ],
        );
        const { merged, ...stored } = rows[0]!;
        const row = toRow(stored);
        await announce(q, memoryChange(merged ? 'merged' : 'recorded', row, team.machine));
        return { row, merged };
      }),

    get: async (id: number): Promise<ObservationRow | undefined> => {
      if (!validId(id)) return undefined;
      const rows = await db.query<PgObservation>(
        `SELECT ${ROW_COLUMNS} FROM memory_observations WHERE team = $1 AND id = $2`,
        [key, id],
      );
      return rows[0] ? toRow(rows[0]) : undefined;
    },

    touch: async (id: number, now: number): Promise<ObservationRow | undefined> => {
      if (!validId(id)) return undefined;
      const rows = await db.query<PgObservation>(
        `UPDATE memory_observations SET access_count = access_count + 1, last_accessed_at = $3
          WHERE team = $1 AND id = $2 RETURNING ${ROW_COLUMNS}`,
        [key, id, now],
      );
      return rows[0] ? toRow(rows[0]) : undefined;
    },

    search: async (
      plan: FtsPlan,
      f: SearchFilters,
      budgetMs: number,
      page: (c: CandidateRow[]) => number[],
    ): Promise<{ mode: MatchMode; rows: HitRow[] }> => {
      const budget = Math.max(1, Math.min(budgetMs, MAX_BUDGET_MS));
      const deadline = performance.now() + budget;
      try {
        return await db.transaction(async (q) => {
          // One snapshot: every candidate the ranking picks is still there when its row is read.
          await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
          // Each statement gets what is left of the budget, so the steps together stay within it.
          const step = async () => {
            const left = Math.floor(deadline - performance.now());
            if (left < 1) throw overBudget(budgetMs);
            await q.query(`SET LOCAL statement_timeout = ${left}`);
          };
          const { rows, mode } = await candidates(q, plan, f, step);
          const ids = page(rows);
          if (ids.length === 0) return { mode, rows: [] };
          await step();
          const { rows: hits } = await q.query<
            Omit<HitRow, 'id' | 'created_at'> & { id: Big; created_at: Big }
          >(
            `SELECT id, title, narrative, memory_type, confidence, impact, concepts, task_id, created_at, machine
               FROM memory_observations WHERE team = $1 AND id = ANY($2::bigint[])`,
            [key, ids],
          );
          return {
            mode,
            rows: hits.map((h) => ({ ...h, id: Number(h.id), created_at: Number(h.created_at) })),
          };
        });
      } catch (err) {
        if (isStatementTimeout(err)) throw overBudget(budgetMs);
        throw err;
      }
    },

    update: async (
      id: number,
      edit: (current: ObservationRow) => EditedObservation,
    ): Promise<ObservationRow | 'duplicate' | undefined> => {
      if (!validId(id)) return undefined;
      try {
        return await db.transaction(async (q) => {
          // The row locked while it is edited: two hubs correcting one record at once take turns.
          const { rows } = await q.query<PgObservation>(
            `SELECT ${ROW_COLUMNS} FROM memory_observations WHERE team = $1 AND id = $2 FOR UPDATE`,
            [key, id],
          );
          if (!rows[0]) return undefined;
          const o = edit(toRow(rows[0]));
          const { rows: out } = await q.query<PgObservation>(
            `UPDATE memory_observations SET title = $3, narrative = $4, facts = $5, concepts = $6, memory_type = $7,
                    confidence = $8, impact = $9, files = $10, task_id = $11, content_hash = $12,
                    search = $13::tsvector, search_text = $14
              WHERE team = $1 AND id = $2 RETURNING ${ROW_COLUMNS}`,
            [
              key,
              id,
              o.title,
              o.narrative,
              o.facts,
              o.concepts,
              o.type,
              o.confidence,
              o.impact,
              o.files,
              o.taskId,
              contentHash(o),
              searchVector([
                [o.title, 'A'],
                [o.concepts.join(' '), 'B'],
                [o.narrative, 'C'],
              ]),
              searchText(o.title, o.concepts, o.narrative),
            ],
          );
          const row = toRow(out[0]!);
          await announce(q, memoryChange('updated', row, team.machine));
          return row;
        });
      } catch (err) {
        // 23505: unique_violation, the edit made it another record's exact duplicate.
        if ((err as { code?: unknown }).code === '23505') return 'duplicate';
        throw err;
      }
    },

    forget: async (id: number, reason: string, by: string, now: number): Promise<ForgetDone | null> => {
      if (!validId(id)) return null;
      return db.transaction(async (q) => {
        const { rows } = await q.query<
          Pick<ObservationRow, 'memory_type' | 'content_hash' | 'agent_session' | 'title'> & { id: Big }
        >(
          `DELETE FROM memory_observations WHERE team = $1 AND id = $2
           RETURNING id, memory_type, content_hash, agent_session, title`,
          [key, id],
        );
        const row = rows[0];
        if (!row) return null;
        const { rows: audit } = await q.query<{ id: Big }>(
          `INSERT INTO memory_forgets (team, machine, observation_id, content_hash, memory_type, agent_session, reason,
                                       forgotten_by, forgotten_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
          [key, team.machine, id, row.content_hash, row.memory_type, row.agent_session, reason, by, now],
        );
        const gone = { ...row, id };
        await announce(q, memoryChange('forgotten', gone, team.machine));
        return { auditId: Number(audit[0]!.id), row: gone };
      });
    },

    forgets: async (limit: number, offset: number): Promise<ForgetRow[]> => {
      const rows = await db.query<
        Omit<ForgetRow, 'id' | 'observation_id' | 'forgotten_at'> & {
          id: Big;
          observation_id: Big;
          forgotten_at: Big;
        }
      >(
        `SELECT id, observation_id, content_hash, memory_type, agent_session, reason, forgotten_by, forgotten_at, machine
           FROM memory_forgets WHERE team = $1 ORDER BY forgotten_at DESC, id DESC LIMIT $2 OFFSET $3`,
        [key, limit, offset],
      );
      return rows.map((r) => ({
        ...r,
        id: Number(r.id),
        observation_id: Number(r.observation_id),
        forgotten_at: Number(r.forgotten_at),
      }));
    },

    timeline: async (f: TimelineFilters): Promise<TimelineRow[]> => {
      const params: unknown[] = [key, f.since, Math.min(f.beforeAt, Number.MAX_SAFE_INTEGER), f.beforeId];
      const where = filterSql(
        { types: f.types, minConfidence: 0, createdAfter: 0, taskId: null, session: f.session },
        params,
      );
      params.push(f.limit);
      const rows = await db.query<Omit<TimelineRow, 'id' | 'created_at'> & { id: Big; created_at: Big }>(
        `SELECT id, title, memory_type, confidence, impact, task_id, agent_session, created_at, machine
           FROM memory_observations
          WHERE team = $1 AND created_at >= $2 AND (created_at < $3 OR (created_at = $3 AND id < $4)) ${where}
          ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
        params,
      );
      return rows.map((r) => ({ ...r, id: Number(r.id), created_at: Number(r.created_at) }));
    },

    dayCounts: async (since: number, types: MemoryType[] | null, session: string | null) => {
      const params: unknown[] = [key, since];
      const where = filterSql({ types, minConfidence: 0, createdAfter: 0, taskId: null, session }, params);
      const rows = await db.query<{ day: Big; count: Big }>(
        `SELECT created_at / 86400000 AS day, count(*) AS count FROM memory_observations
          WHERE team = $1 AND created_at >= $2 ${where}
          GROUP BY 1 ORDER BY 1 DESC`,
        params,
      );
      return rows.map((r) => ({ day: Number(r.day), count: Number(r.count) }));
    },

    count: async () => {
      const rows = await db.query<{ n: Big }>(
        'SELECT count(*) AS n FROM memory_observations WHERE team = $1',
        [key],
      );
      return Number(rows[0]?.n ?? 0);
    },

    onRemoteChange: (listener: (change: MemoryChange) => void) =>
      feed.on(MEMORY_FEED_KIND, (entry) => {
        const body = entry.body as Partial<MemoryChange> | null;
        if (typeof body?.id !== 'number' || typeof body.action !== 'string') return;
        listener({ ...(body as MemoryChange), machine: entry.machine });
      }),
  } satisfies MemoryStore;
  return store;
}
