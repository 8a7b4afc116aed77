// What the map tools (communities, ranking, overview) share: the model of the current generation (computed
// on the first ask, in a worker when the graph is large) with its freshness in meta, and their cursors.
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
