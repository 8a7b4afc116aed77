// ok() and the budget: the meta rules, the trim ladder and the final token estimate.
//
// Ladder (each rung runs only while the envelope is still over budget; meta is never trimmed):
//   0. graph    a body with both `nodes` and `edges` lists: budget 5,000,000 and a coherent cut, keeping the
//               top-K nodes by incident degree and only the edges between kept nodes.
//   1. lists    top-level TRIMMABLE_LIST_KEYS lists.
//   2. buckets  top-level dict-of-lists (`edges_by_type` and any other object whose values include lists):
//               every list value is a bucket.
//   3. members  lists held by the objects of a top-level list (`processes[3].steps`).
//   4. strings  every string of 200 characters or more anywhere in the body, cut to a prefix ending
//               `…[truncated]`.
// Within rungs 1–4 every piece is capped at one common length, the largest that makes the envelope fit
// (max-min fair: short lists stay whole, long ones are cut to the same length, and each keeps a prefix).
// A rung that cannot make the envelope fit applies its smallest cap and hands over to the next rung.
//
// Cost: the skeleton of a rung (the envelope with that rung's pieces emptied) is serialised once; pieces
// are measured front to back, once each, only as far as a probe needs; every probe is arithmetic.
import { digitsOf, settleTokens } from './budget.ts';
import {
  GRAPH_SUBGRAPH_BUDGET_CHARS,
  SCALAR_TRIM_FLOOR_CHARS,
  TOKEN_BUDGET_CHARS,
  TRIMMABLE_LIST_KEYS,
  TRUNCATION_SUFFIX,
} from './constants.ts';
import {
  type Cost,
  costOf,
  fitsBudget,
  MeasuredList,
  MeasuredString,
  newStats,
  serialise,
  type TrimStats,
  weight,
  ZERO,
} from './measure.ts';

export type { TrimStats } from './measure.ts';

export interface OkOptions {
  /** Caller keys for data.meta (`layer`, `next_cursor`, …). Keys only ok() may set are discarded. */
  meta?: Record<string, unknown>;
  /** false: skip the trimmer entirely (browser routes page by themselves). Default true. */
  applyBudget?: boolean;
}

export interface InternalOptions {
  /** Serialise the result and compare with the model even when it is large (tests). */
  verify?: boolean;
  /** Replaces the tier's budget, so property tests reach every rung with small payloads. */
  budget?: number;
}

type Json = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A plain object whose JSON is its own keys (no toJSON): the only objects the ladder looks inside. */
function isTransparentObject(value: unknown): value is Json {
  return isPlainObject(value) && typeof value.toJSON !== 'function';
}

const COMPUTED_KEY = /^(tokens_estimated|truncated|truncated_.*|envelope_unshrinkable)$/;

function mergeCallerMeta(target: Json, source: unknown, what: string): void {
  if (source === undefined || source === null) return;
  if (!isPlainObject(source)) throw new TypeError(`ok(): ${what} must be a plain object`);
  for (const [key, value] of Object.entries(source)) {
    if (!COMPUTED_KEY.test(key)) target[key] = value;
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Paths as JavaScript accessors: `content`, `processes[3].steps`, `edges_by_type["a-b"]`. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (IDENTIFIER.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** What a cut piece writes into meta: `base` plus the kept length's digits when `withKept`. */
interface Part {
  piece: { readonly length: number; measureTo(cap: number): void; cost(cap: number): Cost };
  group: number;
  entry: Cost;
  withKept: boolean;
  /** Digits of a sibling `count` that tracks this list (0 when none does). */
  countDigits: number;
}

interface CapSearch {
  cap: number;
  cost: Cost;
  fits: boolean;
  cut: boolean;
}

const UNSHRINKABLE_MARKER = costOf(',"envelope_unshrinkable":true');

function add(target: Cost, cost: Cost): void {
  target.a += cost.a;
  target.n += cost.n;
}

class Trimmer {
  readonly stats: TrimStats = newStats();
  body: Json;
  readonly meta: Json;
  readonly budget: number;
  readonly graph: boolean;
  /** The top-level list a sibling `count` describes, decided on the original payload. */
  readonly countKey: string | undefined;
  private readonly verify: boolean;

  constructor(body: Json, meta: Json, internal: InternalOptions) {
    this.body = body;
    this.meta = meta;
    this.verify = internal.verify === true;
    this.graph = Array.isArray(body.nodes) && Array.isArray(body.edges);
    this.budget = internal.budget ?? (this.graph ? GRAPH_SUBGRAPH_BUDGET_CHARS : TOKEN_BUDGET_CHARS);
    const count = body.count;
    this.countKey =
      typeof count === 'number'
        ? TRIMMABLE_LIST_KEYS.find((key) => {
            const list = body[key];
            return Array.isArray(list) && list.length === count;
          })
        : undefined;
  }

  envelope(body: Json = this.body): { ok: true; data: Json } {
    return { ok: true, data: body };
  }

  measureEnvelope(body: Json): Cost {
    return costOf(serialise(this.envelope(body), this.stats));
  }

  countDigitsFor(key: string): number {
    return key === this.countKey ? digitsOf(this.body.count as number) : 0;
  }

  /** Runs the ladder; returns the settled cost of the committed envelope (tokens placeholder 0). */
  run(): { cost: Cost; fits: boolean } {
    let current: Cost | undefined;
    const done = (cost: Cost) => ({ cost, fits: fitsBudget(cost, this.budget) });
    if (this.graph) {
      current = this.graphRung();
      if (fitsBudget(current, this.budget)) return done(current);
    }
    for (const rung of [
      () => this.listRung(),
      () => this.bucketRung(),
      () => this.memberRung(),
      () => this.stringRung(),
    ]) {
      const result = rung();
      if (result === undefined) continue;
      current = result;
      if (fitsBudget(current, this.budget)) return done(current);
    }
    return done(current ?? this.measureEnvelope(this.body));
  }

  /** Largest common cap at which the envelope fits; see the ladder note at the top of the file. */
  searchCap(skeleton: Cost, parts: Part[], groups: Cost[], minCap: number): CapSearch {
    const maxCap = parts.reduce((max, part) => Math.max(max, part.piece.length), 0);
    const alreadyTruncated = this.meta.truncated === true;
    const countSlack = parts.reduce((max, part) => Math.max(max, part.countDigits), 0) + 1;
    const evaluate = (cap: number): { cost: Cost; cut: boolean } => {
      const cost = { a: skeleton.a, n: skeleton.n };
      const cutPerGroup = new Array<number>(groups.length).fill(0);
      let cut = false;
      for (const part of parts) {
        add(cost, part.piece.cost(cap));
        if (part.piece.length > cap) {
          cut = true;
          add(cost, part.entry);
          if (part.withKept) cost.a += digitsOf(cap);
          if (part.countDigits > 0) cost.a += digitsOf(cap) - part.countDigits;
          cutPerGroup[part.group]!++;
        }
      }
      for (let g = 0; g < groups.length; g++) {
        const entries = cutPerGroup[g]!;
        if (entries > 0) {
          add(cost, groups[g]!);
          cost.a += entries - 1; // separators between entries
        }
      }
      if (cut && !alreadyTruncated) cost.a -= 1; // "false" becomes "true"
      return { cost, cut };
    };
    const contentWeight = (cap: number): number => {
      const cost = { a: skeleton.a, n: skeleton.n };
      for (const part of parts) add(cost, part.piece.cost(cap));
      return weight(cost) - countSlack;
    };

    // Measure in doubling steps until the content alone is over budget: caps from there on can never fit,
    // and nothing past twice the needed prefix is ever serialised.
    let bound = maxCap;
    for (let step = Math.max(minCap + 1, 16); ; step *= 2) {
      const cap = Math.min(step, maxCap);
      for (const part of parts) part.piece.measureTo(cap);
      if (contentWeight(cap) > this.budget) {
        bound = cap - 1;
        break;
      }
      if (cap === maxCap) break;
    }
    if (bound === maxCap) {
      const whole = evaluate(maxCap);
      if (fitsBudget(whole.cost, this.budget))
        return { cap: maxCap, cost: whole.cost, fits: true, cut: false };
      bound = maxCap - 1;
    }
    const floor = evaluate(minCap);
    if (bound < minCap || !fitsBudget(floor.cost, this.budget)) {
      return { cap: minCap, cost: floor.cost, fits: false, cut: floor.cut };
    }
    let lo = minCap;
    let hi = bound;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fitsBudget(evaluate(mid).cost, this.budget)) lo = mid;
      else hi = mid - 1;
    }
    const best = evaluate(lo);
    return { cap: lo, cost: best.cost, fits: true, cut: best.cut };
  }

  private markCut(rung: string): void {
    this.meta.truncated = true;
    this.stats.rungs.push(rung);
  }

  // Rung 1: top-level trimmable lists.
  listRung(): Cost | undefined {
    const keys = TRIMMABLE_LIST_KEYS.filter((key) => {
      const value = this.body[key];
      if (!Array.isArray(value) || value.length === 0) return false;
      return !(this.graph && (key === 'nodes' || key === 'edges'));
    });
    if (keys.length === 0) return undefined;
    const skeleton: Json = { ...this.body };
    for (const key of keys) skeleton[key] = [];
    const skeletonCost = this.measureEnvelope(skeleton);
    // One group per list: its markers carry their own leading comma, so no separator is counted.
    const parts: Part[] = keys.map((key, group) => ({
      piece: new MeasuredList(this.body[key] as unknown[], this.stats),
      group,
      entry: costOf(
        `,"truncated_${key}_from":${(this.body[key] as unknown[]).length},"truncated_${key}_to":`,
      ),
      withKept: true,
      countDigits: this.countDigitsFor(key),
    }));
    const found = this.searchCap(
      skeletonCost,
      parts,
      keys.map(() => ZERO),
      0,
    );
    if (!found.cut) return found.cost;
    const next: Json = { ...this.body };
    for (const key of keys) {
      const list = this.body[key] as unknown[];
      if (list.length <= found.cap) continue;
      next[key] = list.slice(0, found.cap);
      this.meta[`truncated_${key}_from`] = list.length;
      this.meta[`truncated_${key}_to`] = found.cap;
      if (key === this.countKey) next.count = found.cap;
    }
    this.body = next;
    this.markCut('lists');
    return found.cost;
  }

  // Rung 2: dict-of-list buckets. Keys ending in _from/_to are left alone: their marker would read as a
  // list's trim range.
  bucketRung(): Cost | undefined {
    const dicts: { key: string; buckets: string[] }[] = [];
    for (const [key, value] of Object.entries(this.body)) {
      if (key === 'meta' || !isTransparentObject(value) || /_(from|to)$/.test(key)) continue;
      if (key === 'subgraph' || key === 'string_fields' || key === 'members') continue;
      const buckets = Object.keys(value).filter((bucket) => {
        const list = value[bucket];
        return Array.isArray(list) && list.length > 0;
      });
      if (buckets.length > 0) dicts.push({ key, buckets });
    }
    if (dicts.length === 0) return undefined;
    const skeleton: Json = { ...this.body };
    for (const { key, buckets } of dicts) {
      const dict: Json = { ...(this.body[key] as Json) };
      for (const bucket of buckets) dict[bucket] = [];
      skeleton[key] = dict;
    }
    const skeletonCost = this.measureEnvelope(skeleton);
    const groups: Cost[] = [];
    const parts: Part[] = [];
    for (const { key, buckets } of dicts) {
      const group = groups.length;
      groups.push(costOf(`,${JSON.stringify(`truncated_${key}`)}:{}`));
      const dict = this.body[key] as Json;
      for (const bucket of buckets) {
        const list = dict[bucket] as unknown[];
        parts.push({
          piece: new MeasuredList(list, this.stats),
          group,
          entry: costOf(`${JSON.stringify(bucket)}:{"from":${list.length},"to":}`),
          withKept: true,
          countDigits: 0,
        });
      }
    }
    const found = this.searchCap(skeletonCost, parts, groups, 0);
    if (!found.cut) return found.cost;
    const next: Json = { ...this.body };
    for (const { key, buckets } of dicts) {
      const dict: Json = { ...(this.body[key] as Json) };
      const record: Record<string, { from: number; to: number }> = {};
      for (const bucket of buckets) {
        const list = dict[bucket] as unknown[];
        if (list.length <= found.cap) continue;
        dict[bucket] = list.slice(0, found.cap);
        record[bucket] = { from: list.length, to: found.cap };
      }
      if (Object.keys(record).length === 0) continue;
      next[key] = dict;
      this.meta[`truncated_${key}`] = record;
    }
    this.body = next;
    this.markCut('buckets');
    return found.cost;
  }

  // Rung 3: member lists, i.e. list-valued properties of the plain objects held by a top-level list.
  memberRung(): Cost | undefined {
    const members: { key: string; index: number; member: string; path: string }[] = [];
    for (const [key, value] of Object.entries(this.body)) {
      if (key === 'meta' || !Array.isArray(value)) continue;
      value.forEach((item, index) => {
        if (!isTransparentObject(item)) return;
        for (const [member, list] of Object.entries(item)) {
          if (Array.isArray(list) && list.length > 0) {
            members.push({ key, index, member, path: joinPath(joinPath(joinPath('', key), index), member) });
          }
        }
      });
    }
    if (members.length === 0) return undefined;
    const rebuild = (listFor: (list: unknown[]) => unknown[]): Json => {
      const next: Json = { ...this.body };
      for (const { key, index, member } of members) {
        if (next[key] === this.body[key]) next[key] = [...(this.body[key] as unknown[])];
        const outer = next[key] as unknown[];
        const original = (this.body[key] as unknown[])[index] as Json;
        if (outer[index] === original) outer[index] = { ...original };
        (outer[index] as Json)[member] = listFor(original[member] as unknown[]);
      }
      return next;
    };
    const skeletonCost = this.measureEnvelope(rebuild(() => []));
    const parts: Part[] = members.map(({ key, index, member, path }) => {
      const list = ((this.body[key] as unknown[])[index] as Json)[member] as unknown[];
      return {
        piece: new MeasuredList(list, this.stats),
        group: 0,
        entry: costOf(`${JSON.stringify(path)}:{"from":${list.length},"to":}`),
        withKept: true,
        countDigits: 0,
      };
    });
    const found = this.searchCap(skeletonCost, parts, [costOf(',"truncated_members":{}')], 0);
    if (!found.cut) return found.cost;
    const record: Record<string, { from: number; to: number }> = {};
    for (const { key, index, member, path } of members) {
      const list = ((this.body[key] as unknown[])[index] as Json)[member] as unknown[];
      if (list.length > found.cap) record[path] = { from: list.length, to: found.cap };
    }
    this.body = rebuild((list) => (list.length > found.cap ? list.slice(0, found.cap) : list));
    this.meta.truncated_members = record;
    this.markCut('members');
    return found.cost;
  }

  // Rung 4: the string safety net.
  stringRung(): Cost | undefined {
    const paths: string[] = [];
    const strings: MeasuredString[] = [];
    mapStrings(this.body, '', (value, path) => {
      paths.push(path);
      strings.push(new MeasuredString(value));
      return value;
    });
    if (strings.length === 0) return undefined;
    const skeletonCost = this.measureEnvelope(mapStrings(this.body, '', () => ''));
    const parts: Part[] = strings.map((piece, i) => ({
      piece,
      group: 0,
      entry: costOf(JSON.stringify(paths[i])),
      withKept: false,
      countDigits: 0,
    }));
    const found = this.searchCap(
      skeletonCost,
      parts,
      [costOf(',"truncated_string_fields":[]')],
      TRUNCATION_SUFFIX.length,
    );
    if (!found.cut) return found.cost;
    const cutFields: string[] = [];
    let index = 0;
    this.body = mapStrings(this.body, '', (value, path) => {
      const piece = strings[index++]!;
      if (value.length <= found.cap) return value;
      cutFields.push(path);
      return piece.cut(found.cap);
    });
    this.meta.truncated_string_fields = cutFields;
    this.markCut('strings');
    return found.cost;
  }

  // Rung 0: the coherent subgraph.
  graphRung(): Cost {
    const nodes = this.body.nodes as unknown[];
    const edges = this.body.edges as unknown[];
    const skeletonCost = this.measureEnvelope({ ...this.body, nodes: [], edges: [] });
    const nodeList = new MeasuredList(nodes, this.stats);
    const edgeList = new MeasuredList(edges, this.stats);
    nodeList.measureTo(nodes.length);
    edgeList.measureTo(edges.length);
    const whole = { a: skeletonCost.a, n: skeletonCost.n };
    add(whole, nodeList.cost(nodes.length));
    add(whole, edgeList.cost(edges.length));
    if (fitsBudget(whole, this.budget)) return whole;

    const n = nodes.length;
    const m = edges.length;
    const indexById = new Map<unknown, number>();
    nodes.forEach((node, i) => {
      const id = nodeId(node);
      if (id !== undefined && !indexById.has(id)) indexById.set(id, i);
    });
    const degree = new Float64Array(n);
    const source = new Int32Array(m).fill(-1);
    const target = new Int32Array(m).fill(-1);
    edges.forEach((edge, j) => {
      const [s, t] = edgeEnds(edge);
      const si = indexById.get(s);
      const ti = indexById.get(t);
      if (si === undefined || ti === undefined) return;
      source[j] = si;
      target[j] = ti;
      degree[si]!++;
      degree[ti]!++;
    });
    const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => degree[y]! - degree[x]! || x - y);
    const rank = new Int32Array(n);
    order.forEach((node, r) => {
      rank[node] = r;
    });
    // Top-K prefix sums: nodes by rank, edges by the smallest K that keeps both their ends.
    const nodeA = new Float64Array(n + 1);
    const nodeN = new Float64Array(n + 1);
    order.forEach((node, r) => {
      const c = nodeList.itemCost(node);
      nodeA[r + 1] = nodeA[r]! + c.a;
      nodeN[r + 1] = nodeN[r]! + c.n;
    });
    const edgeA = new Float64Array(n + 2);
    const edgeN = new Float64Array(n + 2);
    const edgeCount = new Float64Array(n + 2);
    const need = new Int32Array(m);
    for (let j = 0; j < m; j++) {
      const s = source[j]!;
      const t = target[j]!;
      need[j] = s < 0 || t < 0 ? n + 1 : Math.max(rank[s]!, rank[t]!) + 1;
      const c = edgeList.itemCost(j);
      edgeA[need[j]!]! += c.a;
      edgeN[need[j]!]! += c.n;
      edgeCount[need[j]!]!++;
    }
    for (let k = 1; k <= n + 1; k++) {
      edgeA[k]! += edgeA[k - 1]!;
      edgeN[k]! += edgeN[k - 1]!;
      edgeCount[k]! += edgeCount[k - 1]!;
    }
    const alreadyTruncated = this.meta.truncated === true;
    const evaluate = (k: number): { cost: Cost; edgesKept: number } => {
      const edgesKept = edgeCount[k]!;
      const cost = {
        a: skeletonCost.a + nodeA[k]! + Math.max(k - 1, 0) + edgeA[k]! + Math.max(edgesKept - 1, 0),
        n: skeletonCost.n + nodeN[k]! + edgeN[k]!,
      };
      cost.a +=
        `,"truncated_subgraph":true,"truncated_nodes_from":${n},"truncated_nodes_to":${k},"truncated_edges_from":${m},"truncated_edges_to":${edgesKept}`.length;
      if (!alreadyTruncated) cost.a -= 1;
      if (this.countKey === 'nodes') cost.a += digitsOf(k) - digitsOf(n);
      if (this.countKey === 'edges') cost.a += digitsOf(edgesKept) - digitsOf(m);
      return { cost, edgesKept };
    };
    let lo = 0;
    let hi = n;
    if (fitsBudget(evaluate(0).cost, this.budget)) {
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (fitsBudget(evaluate(mid).cost, this.budget)) lo = mid;
        else hi = mid - 1;
      }
    }
    const { cost, edgesKept } = evaluate(lo);
    this.body = {
      ...this.body,
      nodes: nodes.filter((_, i) => rank[i]! < lo),
      edges: edges.filter((_, j) => need[j]! <= lo),
    };
    if (this.countKey === 'nodes') this.body.count = lo;
    if (this.countKey === 'edges') this.body.count = edgesKept;
    this.meta.truncated_subgraph = true;
    this.meta.truncated_nodes_from = n;
    this.meta.truncated_nodes_to = lo;
    this.meta.truncated_edges_from = m;
    this.meta.truncated_edges_to = edgesKept;
    this.markCut('graph');
    return cost;
  }

  /** Sets tokens_estimated (and envelope_unshrinkable) from the model, checking it when that is cheap. */
  finish(cost: Cost, fits: boolean, applyBudget: boolean, exact = false): void {
    const final = { a: cost.a, n: cost.n };
    if (!fits && applyBudget) {
      this.meta.envelope_unshrinkable = true;
      add(final, UNSHRINKABLE_MARKER);
    }
    const settled = settleTokens(final.a, final.n);
    this.meta.tokens_estimated = settled.tokens;
    if (exact || (!this.verify && settled.length > VERIFY_BELOW_CHARS)) return;
    const text = serialise(this.envelope(), this.stats);
    const actual = costOf(text);
    if (actual.a === settled.length - final.n && actual.n === final.n) return;
    // The model disagrees with the text: trust the text (and count it, so tests catch the model's bug).
    this.stats.modelMismatches++;
    this.meta.tokens_estimated = 0;
    delete this.meta.envelope_unshrinkable;
    const placeholder = this.measureEnvelope(this.body);
    const stillFits = fitsBudget(placeholder, this.budget);
    if (!stillFits && applyBudget) {
      this.meta.envelope_unshrinkable = true;
      add(placeholder, UNSHRINKABLE_MARKER);
    }
    this.meta.tokens_estimated = settleTokens(placeholder.a, placeholder.n).tokens;
  }
}

/** Small enough that checking the model costs next to nothing. */
const VERIFY_BELOW_CHARS = 2 * TOKEN_BUDGET_CHARS;

function nodeId(node: unknown): unknown {
  if (!isPlainObject(node)) return undefined;
  return node.id ?? node.uid;
}

/** Edge endpoints as graph exports name them: source/target, source_id/target_id or from/to. */
function edgeEnds(edge: unknown): [unknown, unknown] {
  if (!isPlainObject(edge)) return [undefined, undefined];
  if (edge.source !== undefined || edge.target !== undefined) return [edge.source, edge.target];
  if (edge.source_id !== undefined || edge.target_id !== undefined) return [edge.source_id, edge.target_id];
  return [edge.from, edge.to];
}

/**
 * Copy-on-write map over the strings of ≥ SCALAR_TRIM_FLOOR_CHARS in a body (meta excluded), in JSON
 * order; unchanged subtrees are shared, not copied.
 */
function mapStrings(body: Json, base: string, fn: (value: string, path: string) => string): Json {
  const visit = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') return value.length >= SCALAR_TRIM_FLOOR_CHARS ? fn(value, path) : value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        const next = visit(item, joinPath(path, i));
        if (next !== item) {
          out ??= value.slice();
          out[i] = next;
        }
      }
      return out ?? value;
    }
    if (isTransparentObject(value)) {
      let out: Json | undefined;
      for (const [key, item] of Object.entries(value)) {
        const next = visit(item, joinPath(path, key));
        if (next !== item) {
          out ??= { ...value };
          out[key] = next;
        }
      }
      return out ?? value;
    }
    return value;
  };
  let out: Json | undefined;
  for (const [key, item] of Object.entries(body)) {
    if (key === 'meta') continue;
    const next = visit(item, joinPath(base, key));
    if (next !== item) {
      out ??= { ...body };
      out[key] = next;
    }
  }
  return out ?? body;
}

/** ok() with its serialisation counters (the benchmark and tests read them). */
export function okWithStats(
  data: unknown,
  options: OkOptions = {},
  internal: InternalOptions = {},
): { envelope: { ok: true; data: unknown }; stats: TrimStats } {
  if (!isPlainObject(data)) return { envelope: { ok: true, data }, stats: newStats() };
  const meta: Json = {};
  mergeCallerMeta(meta, data.meta, 'data.meta');
  mergeCallerMeta(meta, options.meta, 'options.meta');
  meta.tokens_estimated = 0;
  meta.truncated = false;
  const body: Json = { ...data };
  delete body.meta;
  body.meta = meta;
  const trimmer = new Trimmer(body, meta, internal);
  const applyBudget = options.applyBudget !== false;
  if (!applyBudget) {
    trimmer.finish(trimmer.measureEnvelope(body), true, false, true);
  } else {
    const { cost, fits } = trimmer.run();
    trimmer.finish(cost, fits, true);
  }
  return { envelope: trimmer.envelope(), stats: trimmer.stats };
}
