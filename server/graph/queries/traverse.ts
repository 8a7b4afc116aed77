// Breadth-first walks over the graph for impact, change detection, path and export. Each walk keeps
// the first (shortest) way it reached a node, and stops at a visit cap so one hub symbol cannot turn a
// tool call into a scan of the whole repository.
import type { GraphReader, NodeRow } from './store.ts';

export interface Reached {
  id: number;
  depth: number;
  /** Edge type of the hop that reached it. */
  via: string;
  /** The node it was reached from. */
  from: number;
  /** Lowest confidence along the way. */
  confidence: number;
  line: number | null;
  /**
   * Reached as the declaration a reached node is written in (`outer` of a nested `inner`), at that
   * node's depth: a change that breaks `inner` breaks `outer` with it.
   */
  enclosing?: true;
}

/** Kinds whose members change with them: a file's symbols, a class's methods, a function's nested functions. */
const CONTAINERS = new Set([
  'function',
  'method',
  'constant',
  'variable',
  'file',
  'class',
  'interface',
  'enum',
  'module',
  'type',
  'doc_file',
  'heading',
  'folder',
]);

/** The node and what it contains, transitively (what is edited when it is). */
export function withMembers(r: GraphReader, root: NodeRow, cap = 5000): number[] {
  const out = [root.id];
  if (!CONTAINERS.has(root.kind)) return out;
  const contains = new Set(['contains']);
  for (let i = 0; i < out.length && out.length < cap; i++) {
    for (const e of r.out(out[i]!, contains)) {
      out.push(e.other);
      if (out.length >= cap) break;
    }
  }
  return out;
}

export interface WalkOptions {
  direction: 'upstream' | 'downstream';
  depth: number;
  /** Edge types to follow; undefined = every type but `contains`. */
  types?: ReadonlySet<string>;
  minConfidence?: number;
  cap?: number;
}

export function walk(
  r: GraphReader,
  seeds: readonly number[],
  options: WalkOptions,
): {
  reached: Map<number, Reached>;
  capped: boolean;
  /** The enclosing functions that started the walk with a seed, each with that seed. */
  enclosingSeeds: Map<number, number>;
} {
  const cap = options.cap ?? 20_000;
  const upstream = options.direction === 'upstream';
  // Upstream, a nested function's enclosing functions change with it: they start the walk too.
  const seedSet = new Set(seeds);
  const enclosingSeeds = new Map<number, number>();
  if (upstream)
    for (const s of seeds)
      for (let up = r.enclosing(s); up && !seedSet.has(up.id); up = r.enclosing(up.id)) {
        seedSet.add(up.id);
        enclosingSeeds.set(up.id, s);
      }
  const reached = new Map<number, Reached>();
  const min = options.minConfidence ?? 0;
  let frontier: { id: number; confidence: number }[] = [...seedSet].map((id) => ({ id, confidence: 1 }));
  let capped = false;
  for (let d = 1; d <= options.depth && frontier.length > 0 && !capped; d++) {
    const next: { id: number; confidence: number }[] = [];
    for (const f of frontier) {
      const edges = options.direction === 'upstream' ? r.in(f.id, options.types) : r.out(f.id, options.types);
      for (const e of edges) {
        if (!options.types && e.edge_type === 'contains') continue;
        if (e.confidence < min || seedSet.has(e.other) || reached.has(e.other)) continue;
        const confidence = Math.min(f.confidence, e.confidence);
        reached.set(e.other, {
          id: e.other,
          depth: d,
          via: e.edge_type,
          from: f.id,
          confidence,
          line: e.line,
        });
        next.push({ id: e.other, confidence });
        // A call from a nested function is a call from the functions it is written in, at the same depth.
        for (let at = e.other, up = upstream ? r.enclosing(at) : undefined; up; up = r.enclosing(at)) {
          if (seedSet.has(up.id) || reached.has(up.id)) break;
          reached.set(up.id, {
            id: up.id,
            depth: d,
            via: 'contains',
            from: at,
            confidence,
            line: up.line,
            enclosing: true,
          });
          next.push({ id: up.id, confidence });
          at = up.id;
        }
        if (reached.size >= cap) {
          capped = true;
          break;
        }
      }
      if (capped) break;
    }
    frontier = next;
  }
  return { reached, capped, enclosingSeeds };
}
