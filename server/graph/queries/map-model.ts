// The repository map's model: one read of the reference graph (symbols, files and the edges between
// them), its PageRank, and Louvain communities at two levels (files, symbols). Pure over one connection,
// so it runs the same on the main thread (small graphs) and in map-worker.ts (large ones); what it
// returns is structured-clone friendly (typed arrays, strings) for postMessage.
//
// Deterministic: nodes and edges are sorted by uid before any graph is built, Louvain draws from a
// seeded generator, and ties everywhere break on uid, so an unchanged repository indexed again (even
// with new row ids) gets the same communities, names and ranks.
import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';
import pagerank from 'graphology-metrics/centrality/pagerank.js';
import type { Db } from '../../db/open.ts';

/** Edges that say one symbol or file depends on another (containment and docs aside). */
export const REFERENCE_EDGE_TYPES = [
  'imports',
  'calls',
  'inherits_from',
  'implements',
  'has_param_type',
  'returns_type',
  'constructs',
  'requires',
] as const;

/** Kinds that are code of the repository (externals and dependencies are flagged, not dropped). */
const CODE_KINDS = [
  'file',
  'module',
  'class',
  'interface',
  'type',
  'enum',
  'function',
  'method',
  'variable',
  'constant',
];
const OUTSIDE_KINDS = ['external', 'dependency'];

/** Bounds that keep one computation within a few seconds on a 2-core machine. */
export const MAP_LIMITS = { nodes: 150_000, edges: 600_000 } as const;

export const PAGERANK = { alpha: 0.85, maxIterations: 100, tolerance: 1e-6 } as const;
/** Symbols named as a community's most central. */
const CENTRAL = 5;
/** Links between communities kept per level (the heaviest first). */
const LINKS_KEPT = 5_000;

export type MapLevel = 'file' | 'symbol';

export interface Community {
  /** 1-based, largest first; stable while the graph is. */
  id: number;
  name: string;
  /** The folder most of its members are in. */
  folder: string;
  /** Node indices, most important first. */
  members: number[];
  /** The symbols with the highest rank among its members (or in its files), node indices. */
  central: number[];
}

export interface CommunityLevel {
  level: MapLevel;
  modularity: number;
  communities: Community[];
  /** Heaviest first: [community a, community b, weight] with a < b (ids). */
  links: [number, number, number][];
  /** Nodes with no edge at this level (left out of the communities). */
  isolated: number;
  nodes: number;
  edges: number;
}

export interface MapModel {
  generation: number;
  /** Sorted by uid; index = node index everywhere below. */
  uids: string[];
  ids: Int32Array;
  kinds: string[];
  labels: string[];
  files: (string | null)[];
  /** 1 for external symbols and dependencies. */
  outside: Uint8Array;
  /** Directed reference graph as CSR (deduplicated source → target). */
  offsets: Int32Array;
  targets: Int32Array;
  inDegree: Int32Array;
  /** PageRank over the repository's own nodes (outside nodes 0). */
  rank: Float64Array;
  levels: Record<MapLevel, CommunityLevel>;
  /** The graph was larger than MAP_LIMITS: the least connected nodes or edges were left out. */
  capped: boolean;
  computeMs: number;
}

interface NodeIn {
  id: number;
  uid: string;
  kind: string;
  label: string;
  file_path: string | null;
}

/** mulberry32: a small seeded generator, so Louvain's random walk is the same on every run. */
export function seededRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type WalkResult = { rank: Float64Array; iterations: number; converged: boolean };
type WalkOptions = { alpha?: number; maxIterations?: number; tolerance?: number };

/**
 * PageRank with a teleport vector (personalisation): where a random walker restarts, and where the rank
 * of nodes with no way out goes. `mask` leaves nodes out (rank 0, edges into them ignored). Bounded by
 * `maxIterations`; returns what it has if it has not converged by then. A generator that yields after
 * each iteration, so a caller on the event loop can let other work in between (`pagerankChunked`).
 */
function* pagerankWalk(
  m: Pick<MapModel, 'offsets' | 'targets'>,
  n: number,
  teleport: Float64Array | null,
  mask: Uint8Array | null,
  opts: WalkOptions,
): Generator<void, WalkResult> {
  const alpha = opts.alpha ?? PAGERANK.alpha;
  const maxIterations = opts.maxIterations ?? PAGERANK.maxIterations;
  const tolerance = opts.tolerance ?? PAGERANK.tolerance;
  const live = (i: number) => mask === null || mask[i] === 0;
  let count = 0;
  for (let i = 0; i < n; i++) if (live(i)) count++;
  const tp = new Float64Array(n);
  if (teleport) {
    let sum = 0;
    for (let i = 0; i < n; i++) if (live(i)) sum += teleport[i]!;
    for (let i = 0; i < n; i++) tp[i] = live(i) && sum > 0 ? teleport[i]! / sum : 0;
  } else for (let i = 0; i < n; i++) tp[i] = live(i) ? 1 / count : 0;
  const outDeg = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (!live(i)) continue;
    for (let j = m.offsets[i]!; j < m.offsets[i + 1]!; j++) if (live(m.targets[j]!)) outDeg[i]!++;
  }
  let x = Float64Array.from(tp);
  let next = new Float64Array(n);
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    next.fill(0);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      if (!live(i)) continue;
      const d = outDeg[i]!;
      if (d === 0) {
        dangling += x[i]!;
        continue;
      }
      const share = (alpha * x[i]!) / d;
      for (let j = m.offsets[i]!; j < m.offsets[i + 1]!; j++) {
        const t = m.targets[j]!;
        if (live(t)) next[t]! += share;
      }
    }
    const restart = alpha * dangling + (1 - alpha);
    let err = 0;
    for (let i = 0; i < n; i++) {
      if (!live(i)) continue;
      next[i]! += restart * tp[i]!;
      err += Math.abs(next[i]! - x[i]!);
    }
    [x, next] = [next, x];
    iterations++;
    if (err < count * tolerance) {
      converged = true;
      break;
    }
    yield;
  }
  return { rank: x, iterations, converged };
}

export function personalisedPagerank(
  m: Pick<MapModel, 'offsets' | 'targets'>,
  n: number,
  teleport: Float64Array | null,
  mask: Uint8Array | null,
  opts: WalkOptions = {},
): WalkResult {
  const walk = pagerankWalk(m, n, teleport, mask, opts);
  for (;;) {
    const step = walk.next();
    if (step.done) return step.value;
  }
}

/**
 * The same walk on the event loop, a few milliseconds at a time: it gives way (setImmediate) whenever
 * `sliceMs` have passed, so a personalised ranking of a large graph never holds other requests up.
 */
export async function pagerankChunked(
  m: Pick<MapModel, 'offsets' | 'targets'>,
  n: number,
  teleport: Float64Array | null,
  mask: Uint8Array | null,
  opts: WalkOptions & { sliceMs?: number } = {},
): Promise<WalkResult> {
  const walk = pagerankWalk(m, n, teleport, mask, opts);
  const slice = opts.sliceMs ?? 8;
  let started = performance.now();
  for (;;) {
    const step = walk.next();
    if (step.done) return step.value;
    if (performance.now() - started >= slice) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      started = performance.now();
    }
  }
}

function dirOf(path: string | null): string {
  if (!path) return '.';
  const i = path.lastIndexOf('/');
  return i === -1 ? '.' : path.slice(0, i);
}

/** The folder most members are in (ties: the shorter, then the first by name). */
function dominantFolder(paths: (string | null)[]): string {
  const count = new Map<string, number>();
  for (const p of paths) {
    const d = dirOf(p);
    count.set(d, (count.get(d) ?? 0) + 1);
  }
  let best = '.';
  let bestN = -1;
  for (const [d, n] of count)
    if (n > bestN || (n === bestN && (d.length < best.length || (d.length === best.length && d < best)))) {
      best = d;
      bestN = n;
    }
  return best;
}

interface Pairs {
  /** key a * n + b (a < b) → weight, in insertion order; sorted before use. */
  weights: Map<number, number>;
}

function addPair(p: Pairs, n: number, a: number, b: number): void {
  if (a === b) return;
  const key = a < b ? a * n + b : b * n + a;
  p.weights.set(key, (p.weights.get(key) ?? 0) + 1);
}

function communitiesOf(
  level: MapLevel,
  n: number,
  nodeSet: (i: number) => boolean,
  pairs: Pairs,
  m: Omit<MapModel, 'levels' | 'capped' | 'computeMs'>,
  fileOf: Int32Array,
): CommunityLevel {
  const keys = [...pairs.weights.keys()].sort((a, b) => a - b);
  const g = new Graph({ type: 'undirected', multi: false, allowSelfLoops: false });
  const touched = new Uint8Array(n);
  for (const key of keys) {
    touched[Math.floor(key / n)] = 1;
    touched[key % n] = 1;
  }
  let isolated = 0;
  for (let i = 0; i < n; i++) {
    if (!nodeSet(i)) continue;
    if (touched[i]) g.addNode(String(i));
    else isolated++;
  }
  for (const key of keys)
    g.addEdge(String(Math.floor(key / n)), String(key % n), { weight: pairs.weights.get(key)! });
  if (g.order === 0)
    return { level, modularity: 0, communities: [], links: [], isolated, nodes: 0, edges: 0 };
  const res = louvain.detailed(g, { rng: seededRng(42), getEdgeWeight: 'weight', resolution: 1 });
  const groups = new Map<number, number[]>();
  g.forEachNode((key) => {
    const c = res.communities[key]!;
    let list = groups.get(c);
    if (!list) {
      list = [];
      groups.set(c, list);
    }
    list.push(Number(key));
  });
  const byRank = (a: number, b: number) => m.rank[b]! - m.rank[a]! || byString(m.uids[a]!, m.uids[b]!);
  const lists = [...groups.values()].map((l) => l.sort(byRank));
  // Largest first; equal sizes by their most important member's uid (any fixed order would do).
  lists.sort((a, b) => b.length - a.length || byString(m.uids[a[0]!]!, m.uids[b[0]!]!));
  const communityOf = new Int32Array(n).fill(-1);
  lists.forEach((l, ci) => {
    for (const i of l) communityOf[i] = ci;
  });
  // The most central symbols: the members themselves, or (files) the symbols written in the member files.
  const centralCandidates: number[][] = lists.map(() => []);
  if (level === 'file') {
    for (let i = 0; i < n; i++) {
      if (m.outside[i] || m.kinds[i] === 'file' || fileOf[i]! < 0) continue;
      const c = communityOf[fileOf[i]!]!;
      if (c >= 0) centralCandidates[c]!.push(i);
    }
  }
  const names = new Map<string, number>();
  const communities: Community[] = lists.map((members, ci) => {
    const central = (level === 'file' ? centralCandidates[ci]!.sort(byRank) : members)
      .filter((i) => m.kinds[i] !== 'file')
      .slice(0, CENTRAL);
    const folder = dominantFolder(members.map((i) => m.files[i]!));
    const lead = central[0] ?? members[0]!;
    let name = `${folder === '.' ? (m.files[lead] ?? '.') : folder} · ${m.labels[lead]}`;
    const seen = names.get(name) ?? 0;
    names.set(name, seen + 1);
    if (seen > 0) name = `${name} (${seen + 1})`;
    return { id: ci + 1, name, folder, members, central };
  });
  const between = new Map<number, number>();
  const k = lists.length;
  for (const key of keys) {
    const a = communityOf[Math.floor(key / n)]!;
    const b = communityOf[key % n]!;
    if (a === b || a < 0 || b < 0) continue;
    const pk = a < b ? a * k + b : b * k + a;
    between.set(pk, (between.get(pk) ?? 0) + pairs.weights.get(key)!);
  }
  const links = [...between]
    .map(([pk, w]): [number, number, number] => [Math.floor(pk / k) + 1, (pk % k) + 1, w])
    .sort((x, y) => y[2] - x[2] || x[0] - y[0] || x[1] - y[1])
    .slice(0, LINKS_KEPT);
  return {
    level,
    modularity: res.modularity,
    communities,
    links,
    isolated,
    nodes: g.order,
    edges: g.size,
  };
}

/** Reads the reference graph in one read transaction (a consistent snapshot) and computes the map. */
export function computeMap(db: Db): MapModel {
  const t0 = performance.now();
  const read = db.transaction(() => {
    const generation = (db.prepare('SELECT generation FROM graph_state WHERE id = 1').pluck().get() ??
      0) as number;
    const kinds = JSON.stringify([...CODE_KINDS, ...OUTSIDE_KINDS]);
    const nodes = db
      .prepare(
        `SELECT id, uid, kind, label, file_path FROM graph_nodes
         WHERE kind IN (SELECT value FROM json_each(?)) AND (file_id IS NOT NULL OR kind IN ('external', 'dependency'))`,
      )
      .all(kinds) as NodeIn[];
    const edges = db
      .prepare(
        `SELECT source_id, target_id, edge_type = 'contains' FROM graph_edges
         WHERE edge_type IN (SELECT value FROM json_each(?))`,
      )
      .raw()
      .all(JSON.stringify([...REFERENCE_EDGE_TYPES, 'contains'])) as [number, number, number][];
    return { generation, nodes, edges };
  });
  const { generation, nodes, edges } = read.deferred();
  let capped = false;
  nodes.sort((a, b) => byString(a.uid, b.uid));
  let kept = nodes;
  if (nodes.length > MAP_LIMITS.nodes) {
    // Keep the most connected: an isolated symbol says nothing about structure.
    const degree = new Map<number, number>();
    for (const [s, t] of edges) {
      degree.set(s, (degree.get(s) ?? 0) + 1);
      degree.set(t, (degree.get(t) ?? 0) + 1);
    }
    const keep = new Set(
      [...nodes]
        .sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) || byString(a.uid, b.uid))
        .slice(0, MAP_LIMITS.nodes)
        .map((x) => x.id),
    );
    kept = nodes.filter((x) => keep.has(x.id));
    capped = true;
  }
  const n = kept.length;
  const indexOf = new Map<number, number>();
  const ids = new Int32Array(n);
  const uids: string[] = new Array(n);
  const kindsOut: string[] = new Array(n);
  const labels: string[] = new Array(n);
  const files: (string | null)[] = new Array(n);
  const outside = new Uint8Array(n);
  const fileIndex = new Map<string, number>();
  kept.forEach((x, i) => {
    indexOf.set(x.id, i);
    ids[i] = x.id;
    uids[i] = x.uid;
    kindsOut[i] = x.kind;
    labels[i] = x.label;
    files[i] = x.file_path;
    if (OUTSIDE_KINDS.includes(x.kind)) outside[i] = 1;
    if (x.kind === 'file' && x.file_path) fileIndex.set(x.file_path, i);
  });
  const fileOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const f = files[i];
    if (!outside[i] && f) fileOf[i] = fileIndex.get(f) ?? -1;
  }
  // Reference edges as sorted, deduplicated (source, target) index pairs; containment between symbols
  // apart (it holds a class and its methods together in the symbol-level communities).
  const ref: number[] = [];
  const contains: number[] = [];
  for (const [s, t, isContains] of edges) {
    const a = indexOf.get(s);
    const b = indexOf.get(t);
    if (a === undefined || b === undefined || a === b) continue;
    (isContains ? contains : ref).push(a * n + b);
  }
  // A typed array sorts numerically without a comparator call per step (several times faster here).
  const sorted = Float64Array.from(ref).sort();
  let unique = 0;
  for (let j = 0; j < sorted.length; j++)
    if (j === 0 || sorted[j] !== sorted[j - 1]) sorted[unique++] = sorted[j]!;
  let pairs = sorted.subarray(0, unique);
  if (pairs.length > MAP_LIMITS.edges) {
    pairs = pairs.slice(0, MAP_LIMITS.edges);
    capped = true;
  }
  const offsets = new Int32Array(n + 1);
  const targets = new Int32Array(pairs.length);
  const inDegree = new Int32Array(n);
  for (const key of pairs) offsets[Math.floor(key / n) + 1]!++;
  for (let i = 0; i < n; i++) offsets[i + 1]! += offsets[i]!;
  pairs.forEach((key, j) => {
    targets[j] = key % n;
    inDegree[key % n]!++;
  });

  // PageRank over the repository's own nodes, with graphology-metrics; the same walk by hand if it does
  // not converge within its bound (it throws then).
  const rank = new Float64Array(n);
  const dg = new Graph({ type: 'directed', multi: false, allowSelfLoops: false });
  for (let i = 0; i < n; i++) if (!outside[i]) dg.addNode(String(i));
  for (const key of pairs) {
    const a = Math.floor(key / n);
    const b = key % n;
    if (!outside[a] && !outside[b]) dg.addEdge(String(a), String(b));
  }
  if (dg.order > 0) {
    try {
      const pr = pagerank(dg, { getEdgeWeight: null, ...PAGERANK });
      for (const [key, v] of Object.entries(pr)) rank[Number(key)] = v;
    } catch {
      rank.set(personalisedPagerank({ offsets, targets }, n, null, outside).rank);
    }
  }
  const base = {
    generation,
    uids,
    ids,
    kinds: kindsOut,
    labels,
    files,
    outside,
    offsets,
    targets,
    inDegree,
    rank,
  };

  const filePairs: Pairs = { weights: new Map() };
  const symbolPairs: Pairs = { weights: new Map() };
  const symbol = (i: number) => !outside[i] && kindsOut[i] !== 'file';
  for (const key of pairs) {
    const a = Math.floor(key / n);
    const b = key % n;
    if (outside[a] || outside[b]) continue;
    const fa = fileOf[a]!;
    const fb = fileOf[b]!;
    if (fa >= 0 && fb >= 0) addPair(filePairs, n, fa, fb);
    if (symbol(a) && symbol(b)) addPair(symbolPairs, n, a, b);
  }
  for (const key of contains) {
    const a = Math.floor(key / n);
    const b = key % n;
    if (symbol(a) && symbol(b)) addPair(symbolPairs, n, a, b);
  }
  const levels = {
    file: communitiesOf('file', n, (i) => kindsOut[i] === 'file' && !outside[i], filePairs, base, fileOf),
    symbol: communitiesOf('symbol', n, symbol, symbolPairs, base, fileOf),
  };
  return { ...base, levels, capped, computeMs: performance.now() - t0 };
}

/**
 * The model as the worker posts it: each list of strings joined into one string (a structured clone
 * of one long string costs the receiving thread a fraction of 4 × 30,000 short ones; splitting it again
 * is a few milliseconds), typed arrays transferred rather than copied.
 */
export interface PackedMapModel extends Omit<MapModel, 'uids' | 'kinds' | 'labels' | 'files'> {
  packed: { uids: string; kinds: string; labels: string; files: string };
}

const SEP = '\u0000';
/** A null file path (externals); no path contains U+0001. */
const NO_FILE = '\u0001';

export function packMap(m: MapModel): { packed: PackedMapModel; transfer: ArrayBuffer[] } {
  const { uids, kinds, labels, files, ...rest } = m;
  const packed: PackedMapModel = {
    ...rest,
    packed: {
      uids: uids.join(SEP),
      kinds: kinds.join(SEP),
      labels: labels.join(SEP),
      files: files.map((f) => f ?? NO_FILE).join(SEP),
    },
  };
  const transfer = [m.ids, m.outside, m.offsets, m.targets, m.inDegree, m.rank].map(
    (a) => a.buffer as ArrayBuffer,
  );
  return { packed, transfer };
}

export function unpackMap(p: PackedMapModel): MapModel {
  const { packed, ...rest } = p;
  const split = (s: string) => (p.ids.length === 0 ? [] : s.split(SEP));
  return {
    ...rest,
    uids: split(packed.uids),
    kinds: split(packed.kinds),
    labels: split(packed.labels),
    files: split(packed.files).map((f) => (f === NO_FILE ? null : f)),
  };
}
