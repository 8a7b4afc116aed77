// Memory: what agents learned in one task, findable in the next. The service owns defaults, ranking and
// the wording of errors; a store (port.ts) owns the SQL: SQLite's file (store.ts) for a hub on its own,
// the team's PostgreSQL (pg-store.ts) with COS_DATABASE_URL. The service is written once for both:
// `andThen` keeps every call synchronous on SQLite. Tools reach it as ctx.services.memory.
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { DEFAULT_SEARCH_BUDGET_MS } from '../search/budget.ts';
import { type MatchMode, makeSnippet, planQuery } from '../search/fts-query.ts';
import type { Team } from '../team/team.ts';
import { createPgMemoryStore } from './pg-store.ts';
import {
  type Awaitable,
  andThen,
  type MemoryChange,
  type MemoryStore,
  type MemoryType,
  memoryChange,
  type ObservationRow,
  type Synchronous,
} from './port.ts';
import { type Impact, rank } from './ranking.ts';
import type { ForgetEntry, MemoryHit, Observation, TimelineEntry } from './schemas.ts';
import { createSqliteMemoryStore } from './store.ts';

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
  /** The team on PostgreSQL: with it, memory is the team's (pg-store.ts), not this hub.db's. */
  team?: Team | undefined;
  /** Where `memory-updated` goes, for this hub's writes and, with a team, every other hub's. */
  events?: EventBus | undefined;
  /** Milliseconds one search may hold the thread (COS_SEARCH_BUDGET_MS); see search/budget.ts. */
  searchBudgetMs?: number;
  /** Injected for tests; Date.now otherwise. */
  now?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function toObservation(row: ObservationRow): Observation {
  return {
    id: row.id,
    title: row.title,
    narrative: row.narrative,
    facts: row.facts,
    concepts: row.concepts,
    type: row.memory_type,
    confidence: row.confidence,
    impact: row.impact,
    files: row.files,
    task_id: row.task_id,
    session_id: row.agent_session,
    created_at: iso(row.created_at),
    last_accessed_at: row.last_accessed_at === null ? null : iso(row.last_accessed_at),
    access_count: row.access_count,
    merged_count: row.merged_count,
    ...(row.machine === undefined ? {} : { machine: row.machine }),
  };
}

const tidy = (list: string[] | undefined) => [
  ...new Set((list ?? []).map((s) => s.trim()).filter((s) => s !== '')),
];

const notFound = (id: number) =>
  new ToolError('not_found', `no observation ${id}: it may have been forgotten; find others with cos_search`);

/** The memory service over SQLite (no team): every method answers synchronously. */
export function createMemoryService(
  options: MemoryServiceOptions & { team?: undefined },
): Synchronous<MemoryService>;
export function createMemoryService(options: MemoryServiceOptions): MemoryService;
export function createMemoryService(options: MemoryServiceOptions): MemoryService {
  const store: MemoryStore = options.team
    ? createPgMemoryStore(options.team)
    : createSqliteMemoryStore(options.db);
  return memoryService(store, options);
}

function memoryService(store: MemoryStore, options: MemoryServiceOptions) {
  const now = options.now ?? Date.now;
  const budgetMs = options.searchBudgetMs ?? DEFAULT_SEARCH_BUDGET_MS;
  const machine = options.team?.machine;
  const events = options.events;
  const publish = (change: MemoryChange) => events?.publish('memory-updated', change);
  // What other hubs of the team wrote reaches this hub's stream as if it happened here.
  if (events) store.onRemoteChange(publish);

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
    record(input: RecordInput): Awaitable<{ observation: Observation; merged: boolean }> {
      const title = input.title.trim();
      if (title === '')
        throw new ToolError('validation', 'title must not be blank: say in a few words what was learned');
      return andThen(
        store.record({
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
        }),
        ({ row, merged }) => {
          publish(memoryChange(merged ? 'merged' : 'recorded', row, machine));
          return { observation: toObservation(row), merged };
        },
      );
    },

    search(input: SearchInput): Awaitable<SearchResult> {
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
      let page: ReturnType<typeof rank<{ id: number }>> = [];
      let hasMore = false;
      return andThen(
        store.search(plan, filters, budgetMs, (rows) => {
          const ranked = rank(
            rows,
            (r) => ({
              text: r.text_score,
              confidence: r.confidence,
              impact: r.impact,
              createdAt: r.created_at,
              accessCount: r.access_count,
            }),
            at,
          );
          page = ranked.slice(offset, offset + limit);
          hasMore = ranked.length > offset + limit;
          return page.map(({ item }) => item.id);
        }),
        ({ mode, rows }) => {
          const full = new Map(rows.map((r) => [r.id, r]));
          const results: MemoryHit[] = [];
          for (const { item, score, parts } of page) {
            const r = full.get(item.id);
            if (!r) continue;
            results.push({
              id: r.id,
              title: r.title,
              type: r.memory_type,
              confidence: r.confidence,
              impact: r.impact,
              concepts: r.concepts,
              task_id: r.task_id,
              created_at: iso(r.created_at),
              snippet: makeSnippet(`${r.title}. ${r.narrative}`, plan.terms),
              score,
              score_parts: parts,
              ...(r.machine === undefined ? {} : { machine: r.machine }),
            });
          }
          return { results, mode, has_more: hasMore, next_offset: hasMore ? offset + limit : null };
        },
      );
    },

    timeline(input: TimelineInput): Awaitable<TimelineResult> {
      const days = input.days ?? 7;
      const limit = input.limit ?? 50;
      const at = now();
      // Whole UTC days, so "days: 1" means today, not the last 24 hours.
      const since = Math.floor(at / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
      const types = input.types && input.types.length > 0 ? input.types : null;
      const session = input.session_id ?? null;
      const cursor = decodeCursor(input.before);
      return andThen(
        store.timeline({
          since,
          beforeAt: cursor.at,
          beforeId: cursor.id,
          types,
          session,
          limit: limit + 1,
        }),
        (rows) =>
          andThen(store.dayCounts(since, types, session), (counts) => {
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
                ...(r.machine === undefined ? {} : { machine: r.machine }),
              })),
              days: counts.map((d) => ({ day: iso(d.day * DAY_MS).slice(0, 10), count: d.count })),
              next_before: rows.length > limit && last ? `${last.created_at}-${last.id}` : null,
            };
          }),
      );
    },

    /** One record in full; counts as a read for ranking unless `touch` is false. */
    details(id: number, touch = true): Awaitable<Observation> {
      return andThen(touch ? store.touch(id, now()) : store.get(id), (row) => {
        if (!row) throw notFound(id);
        return toObservation(row);
      });
    },

    update(id: number, patch: UpdateInput): Awaitable<Observation> {
      // Checked before the store is asked, so a bad edit is `validation` even with the database away.
      if (patch.title !== undefined && patch.title.trim() === '')
        throw new ToolError('validation', 'title must not be blank');
      return andThen(
        store.update(id, (row) => ({
          title: (patch.title ?? row.title).trim(),
          narrative: (patch.narrative ?? row.narrative).trim(),
          facts: patch.facts === undefined ? row.facts : tidy(patch.facts),
          concepts:
            patch.concepts === undefined ? row.concepts : tidy(patch.concepts).map((c) => c.toLowerCase()),
          type: patch.type ?? row.memory_type,
          confidence: patch.confidence ?? row.confidence,
          impact: patch.impact ?? row.impact,
          files: patch.files === undefined ? row.files : tidy(patch.files),
          taskId: patch.task_id === undefined ? row.task_id : patch.task_id,
        })),
        (row) => {
          if (row === undefined) throw notFound(id);
          if (row === 'duplicate') {
            throw new ToolError(
              'validation',
              `this edit would make observation ${id} an exact duplicate of another record from the same session: forget one of them instead`,
            );
          }
          publish(memoryChange('updated', row, machine));
          return toObservation(row);
        },
      );
    },

    forget(id: number, reason: string, by: string): Awaitable<{ id: number; audit_id: number }> {
      return andThen(store.forget(id, reason.trim(), by, now()), (done) => {
        if (done === null) {
          throw new ToolError('not_found', `no observation ${id}: it may already have been forgotten`);
        }
        publish(memoryChange('forgotten', done.row, machine));
        return { id, audit_id: done.auditId };
      });
    },

    forgotten(limit: number, offset: number): Awaitable<ForgetEntry[]> {
      return andThen(store.forgets(limit, offset), (rows) =>
        rows.map((f) => ({
          audit_id: f.id,
          observation_id: f.observation_id,
          type: f.memory_type,
          content_hash: f.content_hash,
          session_id: f.agent_session,
          reason: f.reason,
          forgotten_by: f.forgotten_by,
          forgotten_at: iso(f.forgotten_at),
          ...(f.machine === undefined ? {} : { machine: f.machine }),
        })),
      );
    },

    count: (): Awaitable<number> => store.count(),
  };
}

export type MemoryService = ReturnType<typeof memoryService>;
