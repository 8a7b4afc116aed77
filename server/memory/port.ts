// The memory store port: what the service asks of a store, whichever holds the observations. Two
// implementations: store.ts (SQLite, the embedded default: every method answers synchronously, so a
// memory tool on one machine costs what it always did) and pg-store.ts (the team's PostgreSQL: every
// method answers with a promise). The service is written once against `Awaitable` and `andThen`, which
// stay synchronous when the store is.
import { createHash } from 'node:crypto';
import type { FtsPlan, MatchMode } from '../search/fts-query.ts';
import type { Impact } from './ranking.ts';

export const MEMORY_TYPES = ['pattern', 'decision', 'pitfall', 'fact', 'preference'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
export const IMPACTS = ['low', 'medium', 'high', 'critical'] as const;

export type Awaitable<T> = T | Promise<T>;

/** `next(value)`, synchronously when `value` is not a promise: a SQLite call never waits a tick. */
export function andThen<T, U>(value: Awaitable<T>, next: (v: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** A service whose store answers synchronously, typed as such (what SQLite's callers get). */
export type Synchronous<S> = {
  [K in keyof S]: S[K] extends (...args: infer A) => infer R ? (...args: A) => Awaited<R> : S[K];
};

export const IMPACT_ORDER: Record<Impact, number> = { low: 0, medium: 1, high: 2, critical: 3 };

export interface ObservationRow {
  id: number;
  title: string;
  narrative: string;
  facts: string[];
  concepts: string[];
  memory_type: MemoryType;
  confidence: number;
  impact: Impact;
  files: string[];
  task_id: string | null;
  agent_session: string;
  /** ms since the epoch, by the recording hub's clock. */
  created_at: number;
  last_accessed_at: number | null;
  access_count: number;
  merged_count: number;
  content_hash: string;
  /** The machine whose hub recorded it: a team's store knows it, a single hub's does not. */
  machine?: string;
}

/** What a search hit shows: the page's rows, without facts and files. */
export type HitRow = Pick<
  ObservationRow,
  | 'id'
  | 'title'
  | 'narrative'
  | 'memory_type'
  | 'confidence'
  | 'impact'
  | 'concepts'
  | 'task_id'
  | 'created_at'
  | 'machine'
>;

/** What a timeline entry shows. */
export type TimelineRow = Pick<
  ObservationRow,
  | 'id'
  | 'title'
  | 'memory_type'
  | 'confidence'
  | 'impact'
  | 'task_id'
  | 'agent_session'
  | 'created_at'
  | 'machine'
>;

/**
 * A search candidate: what the ranking reads, and no more. A search ranks up to 200 candidates to show
 * a page of ten; the rows of the page are read afterwards, so the other 190 never carry their
 * narratives, facts and files across.
 */
export interface CandidateRow
  extends Pick<ObservationRow, 'id' | 'confidence' | 'impact' | 'created_at' | 'access_count'> {
  /**
   * The text engine's score, higher is better (−bm25 in SQLite, ts_rank in PostgreSQL); null for rows
   * a substring scan found, which has none.
   */
  text_score: number | null;
}

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

/** The editable fields, as an update leaves them. */
export type EditedObservation = Omit<NewObservation, 'session' | 'createdAt'>;

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
  machine?: string;
}

/** What the `memory-updated` event says of a write: enough to refresh a view, never the forgotten text. */
export interface MemoryChange {
  action: 'recorded' | 'merged' | 'updated' | 'forgotten';
  id: number;
  type: string;
  /** Absent for a forgotten record: forgetting removes its text everywhere. */
  title?: string;
  session_id: string;
  /** The machine whose hub made the change (present with a team). */
  machine?: string;
}

export function memoryChange(
  action: MemoryChange['action'],
  row: Pick<ObservationRow, 'id' | 'memory_type' | 'title' | 'agent_session'>,
  machine: string | undefined,
): MemoryChange {
  return {
    action,
    id: row.id,
    type: row.memory_type,
    ...(action === 'forgotten' ? {} : { title: row.title }),
    session_id: row.agent_session,
    ...(machine === undefined ? {} : { machine }),
  };
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

export interface ForgetDone {
  auditId: number;
  /** What the change event names (the text itself is gone). */
  row: Pick<ObservationRow, 'id' | 'memory_type' | 'title' | 'agent_session'>;
}

export interface MemoryStore {
  /** Inserts, or folds an exact duplicate from the same session into the first record (atomically). */
  record(o: NewObservation): Awaitable<{ row: ObservationRow; merged: boolean }>;
  get(id: number): Awaitable<ObservationRow | undefined>;
  /** Marks a read (the ranking's access factor) and returns the row as it is now. */
  touch(id: number, now: number): Awaitable<ObservationRow | undefined>;
  /**
   * Runs the plan's steps until one finds candidates, calls `page` with them (it ranks and returns the
   * ids to show), and reads those rows, all in one snapshot and within `budgetMs`.
   */
  search(
    plan: FtsPlan,
    filters: SearchFilters,
    budgetMs: number,
    page: (candidates: CandidateRow[]) => number[],
  ): Awaitable<{ mode: MatchMode; rows: HitRow[] }>;
  /**
   * Replaces the editable fields with what `edit` makes of the current row, under a lock of that row.
   * 'duplicate' when the result would equal another record of the same session.
   */
  update(
    id: number,
    edit: (current: ObservationRow) => EditedObservation,
  ): Awaitable<ObservationRow | 'duplicate' | undefined>;
  /** Deletes and writes the audit row in one transaction; null when there was nothing to delete. */
  forget(id: number, reason: string, by: string, now: number): Awaitable<ForgetDone | null>;
  forgets(limit: number, offset: number): Awaitable<ForgetRow[]>;
  timeline(f: TimelineFilters): Awaitable<TimelineRow[]>;
  /** Observations per UTC day (day = ms since the epoch / 86,400,000, floored), newest day first. */
  dayCounts(
    since: number,
    types: MemoryType[] | null,
    session: string | null,
  ): Awaitable<{ day: number; count: number }[]>;
  count(): Awaitable<number>;
  /** Calls `listener` with every change another hub made (a store no other hub shares never does). */
  onRemoteChange(listener: (change: MemoryChange) => void): () => void;
}
