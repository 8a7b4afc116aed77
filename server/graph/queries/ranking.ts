// Symbols by importance: PageRank over the reference graph (map-model.ts computes the global one with
// graphology-metrics), or personalised by a query: the walker restarts at the symbols the query names
// (FTS5 over labels and qualified names), so what ranks high is what those symbols lean on. External
// symbols and dependencies take no part unless asked for. Orders are kept per model, a few per query.
import { ToolError } from '../../errors.ts';
import { type MapModel, pagerankChunked } from './map-model.ts';
import { ftsQuery } from './resolve.ts';
import type { GraphReader } from './store.ts';

/** Seeds a query's teleport vector is spread over (the best FTS5 hits). */
const SEEDS = 50;
/** Personalised walks are bounded: an answer, not a perfect fixed point. */
const PERSONALISED_ITERATIONS = 60;
const ORDERS_KEPT = 16;

export interface Ranked {
  /** Node indices, most important first (only those with a rank: outside nodes drop out unless asked). */
  order: Int32Array;
  score: Float64Array;
  /** Nodes the walk covered (the average score is 1). */
  live: number;
  seeds: number;
  iterations: number | null;
}

const orders = new WeakMap<MapModel, Map<string, Ranked>>();

function sortedOrder(m: MapModel, score: Float64Array, keep: (i: number) => boolean): Int32Array {
  const idx: number[] = [];
  for (let i = 0; i < score.length; i++) if (keep(i) && score[i]! > 0) idx.push(i);
  idx.sort((a, b) => score[b]! - score[a]! || (m.uids[a]! < m.uids[b]! ? -1 : 1));
  return Int32Array.from(idx);
}

/** The query's seeds: FTS5 hits of all its words, or of any word when no symbol has all of them. */
function seedsOf(r: GraphReader, m: MapModel, query: string): Map<number, number> {
  const indexOf = new Map<number, number>();
  m.ids.forEach((id, i) => {
    indexOf.set(id, i);
  });
  const weights = new Map<number, number>();
  const take = (fts: string | undefined) => {
    if (!fts) return;
    const rows = r.s.fts.all(fts, SEEDS * 4) as { id: number; rank: number }[];
    let k = 0;
    for (const row of rows) {
      const i = indexOf.get(row.id);
      if (i === undefined || m.outside[i] || weights.has(i)) continue;
      weights.set(i, 1 / (1 + k++));
      if (weights.size >= SEEDS) return;
    }
  };
  take(ftsQuery(query));
  if (weights.size === 0) for (const word of query.split(/\s+/)) take(ftsQuery(word));
  return weights;
}

/** The ranking of the model: the global one at once, a personalised one walked a slice at a time. */
export async function ranking(
  r: GraphReader,
  m: MapModel,
  opts: { query?: string | undefined; external?: boolean | undefined },
): Promise<Ranked> {
  const external = opts.external === true;
  const query = opts.query?.trim() || undefined;
  const key = JSON.stringify([query ?? null, external]);
  let kept = orders.get(m);
  if (!kept) {
    kept = new Map();
    orders.set(m, kept);
  }
  const hit = kept.get(key);
  if (hit) return hit;
  if (query === undefined && !external) return globalRanking(m);
  const n = m.uids.length;
  let score: Float64Array;
  let seeds = 0;
  let iterations: number | null = null;
  const mask = external ? null : m.outside;
  {
    let teleport: Float64Array | null = null;
    if (query !== undefined) {
      const found = seedsOf(r, m, query);
      if (found.size === 0)
        throw new ToolError(
          'not_found',
          `no symbol matches the query "${query.slice(0, 200)}"; try cos_graph_search with part of a name, or leave query out for the whole repository`,
        );
      teleport = new Float64Array(n);
      for (const [i, w] of found) teleport[i] = w;
      seeds = found.size;
    }
    const walk = await pagerankChunked(m, n, teleport, mask, {
      maxIterations: query === undefined ? 100 : PERSONALISED_ITERATIONS,
    });
    score = walk.rank;
    iterations = walk.iterations;
  }
  return keep(m, key, rankedOf(m, score, mask, seeds, iterations));
}

function keep(m: MapModel, key: string, out: Ranked): Ranked {
  let kept = orders.get(m);
  if (!kept) {
    kept = new Map();
    orders.set(m, kept);
  }
  if (kept.size >= ORDERS_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(key, out);
  return out;
}

function rankedOf(
  m: MapModel,
  score: Float64Array,
  mask: Uint8Array | null,
  seeds: number,
  iterations: number | null,
): Ranked {
  let live = 0;
  for (let i = 0; i < score.length; i++) if (mask === null || mask[i] === 0) live++;
  const order = sortedOrder(m, score, (i) => mask === null || mask[i] === 0);
  return { order, score, live, seeds, iterations };
}

const GLOBAL = JSON.stringify([null, false]);

/** The repository's own ranking (the model's PageRank, externals out), ordered once per model. */
export function globalRanking(m: MapModel): Ranked {
  return orders.get(m)?.get(GLOBAL) ?? keep(m, GLOBAL, rankedOf(m, m.rank, m.outside, 0, null));
}

/** Node indices of one page of the ranking, of one kind when given. */
export function rankedPage(
  m: MapModel,
  ranked: Ranked,
  kind: string | undefined,
  offset: number,
  limit: number,
): { indices: number[]; total: number } {
  if (kind === undefined) {
    return {
      indices: Array.from(ranked.order.subarray(offset, offset + limit)),
      total: ranked.order.length,
    };
  }
  const indices: number[] = [];
  let total = 0;
  for (const i of ranked.order) {
    if (m.kinds[i] !== kind) continue;
    if (total >= offset && indices.length < limit) indices.push(i);
    total++;
  }
  return { indices, total };
}
