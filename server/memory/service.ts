// Memory: what agents learned in one task, findable in the next. The service owns defaults, ranking and
// the wording of errors; the store owns SQL. Tools reach it as ctx.services.memory.
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';
import { DEFAULT_SEARCH_BUDGET_MS, withinBudget } from '../search/budget.ts';
import { type MatchMode, makeSnippet, planQuery, runPlan } from '../search/fts-query.ts';
import { type Impact, rank } from './ranking.ts';
import type { ForgetEntry, MemoryHit, Observation, TimelineEntry } from './schemas.ts';
import { type CandidateRow, createMemoryStore, type MemoryType, type ObservationRow } from './store.ts';

declare module '../hub-services.ts' {
  interface HubServices {
    memory: MemoryService;
  }
}

const DAY_MS = 86_400_000;
/** How many FTS hits the blend re-orders; a search can page through this many. */
export const CANDIDATE_POOL = 200;

export interface RecordInput {
  title: string;
  narrative?: string;
  facts?: string[];
  concepts?: string[];
  type: MemoryType;
  confidence?: number;
  impact?: Impact;
  files?: string[];
  task_id?: string | null;
  session_id?: string;
}

export interface SearchInput {
  query: string;
  types?: MemoryType[];
  min_confidence?: number;
  max_age_days?: number;
  task_id?: string;
  session_id?: string;
  limit?: number;
  offset?: number;
}

export interface SearchResult {
  results: MemoryHit[];
  mode: MatchMode;
  has_more: boolean;
  next_offset: number | null;
}

export interface TimelineInput {
  days?: number;
  types?: MemoryType[];
  session_id?: string;
  limit?: number;
  /** Cursor from a previous answer's next_before. */
  before?: string;
}

export interface TimelineResult {
  entries: TimelineEntry[];
  days: { day: string; count: number }[];
  next_before: string | null;
}

export type UpdateInput = Partial<Omit<RecordInput, 'session_id'>>;

export interface MemoryServiceOptions {
  db: Db;
  /** Milliseconds one search may hold the thread (COS_SEARCH_BUDGET_MS); see search/budget.ts. */
  searchBudgetMs?: number;
  /** Injected for tests; Date.now otherwise. */
  now?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const parseList = (json: string) => JSON.parse(json) as string[];

export function toObservation(row: ObservationRow): Observation {
  return {
    id: row.id,
    title: row.title,
    narrative: row.narrative,
    facts: parseList(row.facts),
    concepts: parseList(row.concepts),
    type: row.memory_type,
    confidence: row.confidence,
    impact: row.impact,
    files: parseList(row.files),
    task_id: row.task_id,
    session_id: row.agent_session,
    created_at: iso(row.created_at),
    last_accessed_at: row.last_accessed_at === null ? null : iso(row.last_accessed_at),
    access_count: row.access_count,
    merged_count: row.merged_count,
  };
}

const tidy = (list: string[] | undefined) => [
  ...new Set((list ?? []).map((s) => s.trim()).filter((s) => s !== '')),
];

export function createMemoryService(options: MemoryServiceOptions) {
  const store = createMemoryStore(options.db);
  const now = options.now ?? Date.now;
  const budgetMs = options.searchBudgetMs ?? DEFAULT_SEARCH_BUDGET_MS;

  function requireRow(id: number): ObservationRow {
    const row = store.get(id);
    if (!row) {
      throw new ToolError(
        'not_found',
        `no observation ${id}: it may have been forgotten; find others with cos_search`,
      );
    }
    return row;
  }

  function decodeCursor(cursor: string | undefined): { at: number; id: number } {
    if (cursor === undefined || cursor === '')
      return { at: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };
    const m = /^(\d{1,15})-(\d{1,15})$/.exec(cursor);
    if (!m)
      throw new ToolError(
        'validation',
        'before must be a next_before value from a previous cos_timeline answer',
      );
    return { at: Number(m[1]), id: Number(m[2]) };
  }

  return {
    record(input: RecordInput): { observation: Observation; merged: boolean } {
      const title = input.title.trim();
      if (title === '')
        throw new ToolError('validation', 'title must not be blank: say in a few words what was learned');
      const { row, merged } = store.record({
        title,
        narrative: (input.narrative ?? '').trim(),
        facts: tidy(input.facts),
        concepts: tidy(input.concepts).map((c) => c.toLowerCase()),
        type: input.type,
        confidence: input.confidence ?? 0.7,
        impact: input.impact ?? 'medium',
        files: tidy(input.files),
        taskId: input.task_id ?? null,
        session: input.session_id ?? '',
        createdAt: now(),
      });
      return { observation: toObservation(row), merged };
    },

    search(input: SearchInput): SearchResult {
      const plan = planQuery(input.query);
      const limit = input.limit ?? 10;
      const offset = input.offset ?? 0;
      const at = now();
      const filters = {
        types: input.types && input.types.length > 0 ? input.types : null,
        minConfidence: input.min_confidence ?? 0,
        createdAfter: input.max_age_days === undefined ? 0 : at - input.max_age_days * DAY_MS,
        taskId: input.task_id ?? null,
        session: input.session_id ?? null,
        pool: CANDIDATE_POOL,
      };
      return store.reading(() => {
        const { rows, mode } = withinBudget(options.db, budgetMs, 'memory', () =>
          runPlan<CandidateRow>(plan, (step) =>
            step.mode === 'words'
              ? store.searchWords(step.match, filters)
              : store.searchSubstring(step.match, step.short, filters),
          ),
        );
        const ranked = rank(
          rows,
          (r) => ({
            bm25: r.bm25,
            confidence: r.confidence,
            impact: r.impact,
            createdAt: r.created_at,
            accessCount: r.access_count,
          }),
          at,
        );
        const page = ranked.slice(offset, offset + limit);
        const hasMore = ranked.length > offset + limit;
        // In the same read transaction as the ranking, so every candidate of the page is still there.
        const full = new Map(store.getMany(page.map(({ item }) => item.id)).map((r) => [r.id, r]));
        return {
          results: page.map(({ item, score, parts }) => {
            const r = full.get(item.id)!;
            return {
              id: r.id,
              title: r.title,
              type: r.memory_type,
              confidence: r.confidence,
              impact: r.impact,
              concepts: parseList(r.concepts),
              task_id: r.task_id,
              created_at: iso(r.created_at),
              snippet: makeSnippet(`${r.title}. ${r.narrative}`, plan.terms),
              score,
              score_parts: parts,
            };
          }),
          mode,
          has_more: hasMore,
          next_offset: hasMore ? offset + limit : null,
        };
      });
    },

    timeline(input: TimelineInput): TimelineResult {
      const days = input.days ?? 7;
      const limit = input.limit ?? 50;
      const at = now();
      // Whole UTC days, so "days: 1" means today, not the last 24 hours.
      const since = Math.floor(at / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
      const types = input.types && input.types.length > 0 ? input.types : null;
      const session = input.session_id ?? null;
      const cursor = decodeCursor(input.before);
      const rows = store.timeline({
        since,
        beforeAt: cursor.at,
        beforeId: cursor.id,
        types,
        session,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        entries: page.map((r) => ({
          id: r.id,
          day: iso(r.created_at).slice(0, 10),
          title: r.title,
          type: r.memory_type,
          confidence: r.confidence,
          impact: r.impact,
          task_id: r.task_id,
          session_id: r.agent_session,
          created_at: iso(r.created_at),
        })),
        days: store.dayCounts(since, types, session),
        next_before: rows.length > limit && last ? `${last.created_at}-${last.id}` : null,
      };
    },

    /** One record in full; counts as a read for ranking unless `touch` is false. */
    details(id: number, touch = true): Observation {
      requireRow(id);
      if (touch) store.touch(id, now());
      return toObservation(requireRow(id));
    },

    update(id: number, patch: UpdateInput): Observation {
      const row = requireRow(id);
      const current = toObservation(row);
      const title = (patch.title ?? current.title).trim();
      if (title === '') throw new ToolError('validation', 'title must not be blank');
      try {
        store.update(id, {
          title,
          narrative: (patch.narrative ?? current.narrative).trim(),
          facts: patch.facts === undefined ? current.facts : tidy(patch.facts),
          concepts:
            patch.concepts === undefined
              ? current.concepts
              : tidy(patch.concepts).map((c) => c.toLowerCase()),
          type: patch.type ?? current.type,
          confidence: patch.confidence ?? current.confidence,
          impact: patch.impact ?? current.impact,
          files: patch.files === undefined ? current.files : tidy(patch.files),
          taskId: patch.task_id === undefined ? current.task_id : patch.task_id,
        });
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw new ToolError(
            'validation',
            `this edit would make observation ${id} an exact duplicate of another record from the same session: forget one of them instead`,
          );
        }
        throw err;
      }
      return toObservation(requireRow(id));
    },

    forget(id: number, reason: string, by: string): { id: number; audit_id: number } {
      const done = store.forget(id, reason.trim(), by, now());
      if (done === null) {
        throw new ToolError('not_found', `no observation ${id}: it may already have been forgotten`);
      }
      return { id, audit_id: done.auditId };
    },

    forgotten(limit: number, offset: number): ForgetEntry[] {
      return store.forgets(limit, offset).map((f) => ({
        audit_id: f.id,
        observation_id: f.observation_id,
        type: f.memory_type,
        content_hash: f.content_hash,
        session_id: f.agent_session,
        reason: f.reason,
        forgotten_by: f.forgotten_by,
        forgotten_at: iso(f.forgotten_at),
      }));
    },

    count: () => store.count(),
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
