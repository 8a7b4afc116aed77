// Shortest path between two nodes: a breadth-first search from both ends that always grows the smaller
// frontier, so a hub on one side does not blow the search up before the other side is tried.
import type { GraphReader, NeighbourRow } from './store.ts';

export interface PathHop {
  source: number;
  target: number;
  edge: NeighbourRow;
}

type Parent = { id: number; edge: NeighbourRow } | null;

export function shortestPath(
  r: GraphReader,
  from: number,
  to: number,
  options: { maxHops: number; types?: ReadonlySet<string>; directed: boolean; cap?: number },
): { nodes: number[]; hops: PathHop[] } | { nodes: undefined; capped: boolean } {
  if (from === to) return { nodes: [from], hops: [] };
  const cap = options.cap ?? 200_000;
  // Forward side follows edges source → target; the backward side walks them target → source.
  const fwd = new Map<number, Parent>([[from, null]]);
  const bwd = new Map<number, Parent>([[to, null]]);
  let fFront = [from];
  let bFront = [to];
  let fDepth = 0;
  let bDepth = 0;
  const step = (id: number, forward: boolean): NeighbourRow[] => {
    if (!options.directed) return [...r.out(id, options.types), ...r.in(id, options.types)];
    return forward ? r.out(id, options.types) : r.in(id, options.types);
  };
  while (fFront.length > 0 && bFront.length > 0 && fDepth + bDepth < options.maxHops) {
    const forward = fFront.length <= bFront.length;
    const front = forward ? fFront : bFront;
    const mine = forward ? fwd : bwd;
    const theirs = forward ? bwd : fwd;
    const next: number[] = [];
    for (const id of front) {
      for (const e of step(id, forward)) {
        if (mine.has(e.other)) continue;
        mine.set(e.other, { id, edge: e });
        if (theirs.has(e.other)) return build(e.other, fwd, bwd);
        next.push(e.other);
      }
      if (fwd.size + bwd.size > cap) return { nodes: undefined, capped: true };
    }
    if (forward) {
      fFront = next;
      fDepth++;
    } else {
      bFront = next;
      bDepth++;
    }
  }
  return { nodes: undefined, capped: false };
}

function build(meet: number, fwd: Map<number, Parent>, bwd: Map<number, Parent>) {
  const left: number[] = [];
  const hops: PathHop[] = [];
  for (let id: number | undefined = meet; id !== undefined; ) {
    left.push(id);
    const p = fwd.get(id);
    id = p ? p.id : undefined;
  }
  left.reverse();
  for (let i = 1; i < left.length; i++) {
    const p = fwd.get(left[i]!)!;
    hops.push(orient(p.edge, left[i - 1]!, left[i]!));
  }
  const nodes = [...left];
  for (let id = meet; ; ) {
    const p = bwd.get(id);
    if (!p) break;
    hops.push(orient(p.edge, id, p.id));
    nodes.push(p.id);
    id = p.id;
  }
  return { nodes, hops };
}

/** The stored edge's real direction, whichever way the search crossed it. */
function orient(edge: NeighbourRow, a: number, b: number): PathHop {
  return edge.source_id === a && edge.target_id === b
    ? { source: a, target: b, edge }
    : { source: edge.source_id, target: edge.target_id, edge };
}
