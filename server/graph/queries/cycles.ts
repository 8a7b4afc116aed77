// Strongly connected components of one edge type (Tarjan, iterative so a deep import chain cannot
// overflow the stack), and a shortest cycle through each for the answer to show.
import type { GraphReader } from './store.ts';

export function stronglyConnected(
  r: GraphReader,
  type: string,
): { components: number[][]; selfLoops: number[] } {
  const adj = new Map<number, number[]>();
  const selfLoops = new Set<number>();
  for (const [s, t] of r.s.edgesOfType.all(type) as [number, number][]) {
    if (s === t) {
      selfLoops.add(s);
      continue;
    }
    let l = adj.get(s);
    if (!l) {
      l = [];
      adj.set(s, l);
    }
    l.push(t);
  }
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const components: number[][] = [];
  let next = 0;
  for (const start of adj.keys()) {
    if (index.has(start)) continue;
    const work: { v: number; i: number }[] = [{ v: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const succ = adj.get(top.v) ?? [];
      if (top.i < succ.length) {
        const w = succ[top.i++]!;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) === index.get(top.v)) {
        const comp: number[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
          if (w === top.v) break;
        }
        if (comp.length > 1) components.push(comp);
      }
    }
  }
  return { components, selfLoops: [...selfLoops] };
}

/** The shortest cycle through `start` that stays inside `members` (breadth-first back to start). */
export function cycleThrough(
  r: GraphReader,
  type: string,
  start: number,
  members: ReadonlySet<number>,
): number[] {
  const types = new Set([type]);
  const parent = new Map<number, number>();
  let frontier = [start];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const v of frontier) {
      for (const e of r.out(v, types)) {
        if (!members.has(e.other)) continue;
        if (e.other === start) {
          const path = [v];
          for (let p = parent.get(v); p !== undefined; p = parent.get(p)) path.push(p);
          return path.reverse();
        }
        if (parent.has(e.other) || e.other === start) continue;
        parent.set(e.other, v);
        next.push(e.other);
      }
    }
    frontier = next;
  }
  return [start];
}
