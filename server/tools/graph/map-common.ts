// What the map tools (communities, ranking, overview) share: the model of the current generation (computed
// on the first ask, in a worker when the graph is large) with its freshness in meta, and their cursors.
import { budgetSize } from '../../../shared/envelope/index.ts';
import { ToolError } from '../../errors.ts';
import { mapModel } from '../../graph/queries/map-cache.ts';
import type { MapModel } from '../../graph/queries/map-model.ts';
import type { ToolContext } from '../context.ts';
import { type GraphCall, graphCall } from './common.ts';
import { cursorFor, cursorOffset } from './export-page.ts';

export interface MapCall extends GraphCall {
  m: MapModel;
}

export async function mapCall(ctx: ToolContext): Promise<MapCall> {
  const call = graphCall(ctx);
  const m = await mapModel(ctx.db);
  call.meta.map = {
    generation: m.generation,
    computed_ms: Math.round(m.computeMs),
    capped: m.capped,
  };
  if (m.generation !== call.freshness.generation)
    call.meta.map_note = `computed for generation ${m.generation}; the graph is at ${call.freshness.generation} now: ask again for the newer map`;
  return { ...call, m };
}

/** The offset a cursor points at (checked against the arguments and the generation it was given for). */
export function pageStart(cursor: string | undefined, request: unknown, m: MapModel): number {
  return cursorOffset(cursor, JSON.stringify(request), m.generation);
}

export function nextCursor(next: number, total: number, request: unknown, m: MapModel): string | null {
  return next < total ? cursorFor(next, JSON.stringify(request), m.generation) : null;
}

export function pastEnd(offset: number, total: number): void {
  if (offset > 0 && offset >= total)
    throw new ToolError('validation', 'cursor is past the end of this list; leave it out for the first page');
}

/** A cursor as long as any nextCursor gives, for measuring a page before its real cursor is known. */
export const PROBE_CURSOR = 'x'.repeat(64);

/** Characters kept free for what ok() adds to meta (tokens_estimated, truncated, layer). */
const OK_META_RESERVE = 160;

/**
 * How many of `items` fit the agent budget (ctx.budget) once `make` wraps them into the answer's data:
 * the largest prefix that fits (at least one), so the page is cut here, with a cursor to the rest,
 * instead of by the trimmer. Without a budget (REST), all of them.
 */
export function fittingCount<T>(
  ctx: ToolContext,
  items: readonly T[],
  make: (page: readonly T[]) => unknown,
): number {
  const budget = ctx.budget;
  if (budget === undefined || items.length <= 1) return items.length;
  const fits = (k: number) =>
    budgetSize(JSON.stringify({ ok: true, data: make(items.slice(0, k)) })) + OK_META_RESERVE <= budget;
  if (fits(items.length)) return items.length;
  let lo = 1;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
