// An export cut into pages that fit the agent budget. A subgraph's nodes come in the order the selection
// found them (the containment tree top down, dependencies outward from the root, or the most connected
// first), so every prefix is the most useful part of it; a page is the next run of nodes, with each edge
// on the page of its later end, so the pages together are the whole export and no edge comes twice.
// Only the MCP face pages (its answers must fit an agent's context); REST draws the whole selection, and
// `budget: "subgraph"` asks MCP for it too, up to the contract's 5 MB tier.
import { createHash } from 'node:crypto';
import { budgetSize } from '../../../shared/envelope/index.ts';
import { ToolError } from '../../errors.ts';
import { type Subgraph, toDot, toMermaid } from '../../graph/queries/subgraph.ts';

export interface JsonExport {
  nodes: { uid: string }[];
  edges: { source: string; target: string }[];
}

/** Characters kept free for what ok() adds to meta (tokens_estimated, truncated, layer). */
const OK_META_RESERVE = 120;

/** The page a cursor points at, checked against the request and the graph it was made for. */
export function cursorOffset(cursor: string | undefined, request: string, generation: number): number {
  if (cursor === undefined) return 0;
  const [offset, gen, hash] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (hash !== requestHash(request) || !/^\d+$/.test(offset ?? '') || !/^\d+$/.test(gen ?? '')) {
    throw new ToolError(
      'validation',
      'cursor is not one this export gave for these arguments: pass meta.next_cursor back with the same arguments, or leave cursor out for the first page',
    );
  }
  if (Number(gen) !== generation) {
    throw new ToolError(
      'validation',
      `the code graph changed since this cursor was given (generation ${gen}, now ${generation}); start again without cursor`,
    );
  }
  return Number(offset);
}

function requestHash(request: string): string {
  return createHash('sha1').update(request).digest('base64url').slice(0, 10);
}

export function cursorFor(offset: number, request: string, generation: number): string {
  return Buffer.from(`${offset}:${generation}:${requestHash(request)}`).toString('base64url');
}

/** Serialised size as the budget counts it, with the comma that separates it from its neighbour. */
const sizeOf = (value: unknown) => budgetSize(JSON.stringify(value)) + 1;

export interface Page<T> {
  out: T;
  /** Nodes and edges on this page, and in the whole export. */
  nodes: number;
  edges: number;
  /** The offset of the next page, or null when this one reaches the end. */
  next: number | null;
}

/**
 * The JSON page of `full` from node `offset` that fits `budget` with `meta` beside it: nodes
 * [offset, offset + k) for the largest k that fits (at least one node), and the edges whose later end is
 * among them.
 */
export function jsonPage<T extends JsonExport>(
  full: T,
  offset: number,
  budget: number,
  meta: Record<string, unknown>,
): Page<T> {
  const position = new Map(full.nodes.map((n, i) => [n.uid, i]));
  const byLaterEnd: number[][] = full.nodes.map(() => []);
  full.edges.forEach((e, i) => {
    const at = Math.max(position.get(e.source) ?? 0, position.get(e.target) ?? 0);
    byLaterEnd[at]!.push(i);
  });
  const frame = sizeOf({ ok: true, data: { ...full, nodes: [], edges: [], meta } }) + OK_META_RESERVE;
  const fits = (k: number): T => {
    const nodes = full.nodes.slice(offset, offset + k);
    const edges = byLaterEnd.slice(offset, offset + k).flatMap((ids) => ids.map((i) => full.edges[i]!));
    return { ...full, nodes, edges };
  };
  let used = frame;
  let k = 0;
  while (offset + k < full.nodes.length) {
    const next = offset + k;
    const cost = sizeOf(full.nodes[next]) + byLaterEnd[next]!.reduce((a, i) => a + sizeOf(full.edges[i]), 0);
    if (used + cost > budget && k > 0) break;
    used += cost;
    k++;
  }
  // The estimate counts each item apart; the whole is checked once and cut further in the rare case
  // that rounding put it over.
  let out = fits(k);
  while (k > 1 && sizeOf({ ok: true, data: { ...out, meta } }) + OK_META_RESERVE > budget) {
    k = Math.max(1, Math.floor(k * 0.9));
    out = fits(k);
  }
  const end = offset + k;
  return {
    out,
    nodes: out.nodes.length,
    edges: out.edges.length,
    next: end < full.nodes.length ? end : null,
  };
}

/** The first `k` nodes of a subgraph and the edges among them. */
function prefix(g: Subgraph, k: number): Subgraph {
  const nodes = g.nodes.slice(0, k);
  const kept = new Set(nodes.map((n) => n.id));
  return { ...g, nodes, edges: g.edges.filter((e) => kept.has(e.source) && kept.has(e.target)) };
}

/**
 * Mermaid or DOT of the largest prefix of `g` that fits `budget` beside `frame` (the rest of the
 * envelope): text is not paged, since a page of it would name nodes an earlier page declared.
 */
export function textPrefix(
  g: Subgraph,
  format: 'mermaid' | 'dot',
  budget: number,
  frame: number,
): { text: string; nodes: number; edges: number } {
  const render = format === 'mermaid' ? toMermaid : toDot;
  const cost = (k: number) => {
    const sub = prefix(g, k);
    const text = render(sub);
    return { text, sub, size: sizeOf(text) + frame + OK_META_RESERVE };
  };
  let best = cost(Math.min(1, g.nodes.length));
  let lo = 1;
  let hi = g.nodes.length;
  const whole = cost(hi);
  if (whole.size <= budget) best = whole;
  else {
    while (lo < hi - 1) {
      const mid = (lo + hi) >> 1;
      const probe = cost(mid);
      if (probe.size <= budget) {
        lo = mid;
        best = probe;
      } else hi = mid;
    }
  }
  return { text: best.text, nodes: best.sub.nodes.length, edges: best.sub.edges.length };
}
