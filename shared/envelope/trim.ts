// ok() and the budget: the meta rules, the trim ladder and the final token estimate.
//
// Only object payloads are trimmed (a list or scalar payload has no meta to announce a cut in). Each rung
// runs only while the envelope is still over budget; meta itself is never trimmed.
//   0. graph    a body whose `nodes` and `edges` are both lists: budget 5,000,000 for every rung, and first a
//               coherent cut keeping the top-K nodes by incident degree (ties: original order) and exactly
//               the edges whose two ends are kept, both in original order. Node id: `id` ?? `uid`; edge ends:
//               `source`/`target`, `source_id`/`target_id` or `from`/`to`. Markers: truncated_subgraph,
//               truncated_nodes_from/_to, truncated_edges_from/_to.
//   1. lists    top-level lists under TRIMMABLE_LIST_KEYS (nodes/edges excepted in the graph tier).
//               Markers: truncated_<key>_from/_to. A top-level `count` equal to the original length of
//               the first such list (in TRIMMABLE_LIST_KEYS order) follows it; `total_count` never does.
//   2. buckets  every list value of a top-level plain object (`edges_by_type`, `by_file`, …). Marker:
//               truncated_<key>: {bucket: {from, to}}. Keys ending _from/_to, and subgraph/string_fields/
//               members, are skipped: their marker would collide with another.
//   3. members  every list value of the plain objects held by a top-level list (any key). Marker:
//               truncated_members: {"processes[3].steps": {from, to}}.
//   4. strings  every string of 200+ characters at any depth (plain objects and lists), cut to a prefix
//               ending `…[truncated]` (never between a surrogate pair). Marker: truncated_string_fields,
//               the cut strings' paths in JSON order.
// Within rungs 1–4 every piece is capped at one common length (items, or characters for strings), the
// largest that makes the envelope fit: short pieces stay whole, long ones keep a prefix of the same
// length. A rung that cannot make the envelope fit applies its smallest cap and hands over to the next;
// if the last one cannot either, meta says envelope_unshrinkable. Paths are JavaScript accessors.
//
// Cost: a rung serialises its skeleton (the envelope with that rung's pieces emptied) once, and sizes the
// pieces front to back only as far as a probe needs (lists in chunks, strings by their plain-ASCII run),
// so every probe is arithmetic on prefix sums and the body is never serialised again per probe.
import { digitsOf, settleTokens } from './budget.ts';
import {
  GRAPH_SUBGRAPH_BUDGET_CHARS,
  type Layer,
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

/** What a caller may put in meta. Keys only ok() may set are accepted by the type but always discarded. */
export type CallerMeta = {
  layer?: Layer;
  /** How to fetch what a cut left out: a tool turns the trim markers into one of these. */
  next_cursor?: string | null;
  next_offset?: number | null;
} & Record<string, unknown>;

export interface OkOptions {
  /** Caller keys for data.meta (`layer`, `next_cursor`, …), merged over any meta already in the payload. */
  meta?: CallerMeta;
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

/**
 * Assignment with a key taken from the payload: plain `obj[key] =` would set the prototype for a
 * `__proto__` key (which JSON.parse does create) instead of a property JSON writes.
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty is slow and can push V8 into dictionary mode, so only the one key that needs it.
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

const COMPUTED_KEY = /^(tokens_estimated|truncated|truncated_.*|envelope_unshrinkable)$/;

function mergeCallerMeta(target: Json, source: unknown, what: string): void {
  if (source === undefined || source === null) return;
  if (!isPlainObject(source)) throw new TypeError(`ok(): ${what} must be a plain object`);
  for (const [key, value] of Object.entries(source)) {
    if (!COMPUTED_KEY.test(key)) setOwn(target, key, value);
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
  piece: { readonly length: number; measureTo(cap: number): void; addCost(cap: number, into: Cost): void };
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
  /** The committed envelope serialised with tokens_estimated 0, when run() measured it whole. */
  private wholeText: string | undefined;
  /** JSON.stringify of the final envelope, when finish() could derive it without serialising again. */
  text: string | undefined;
  /** The text's UTF-8 length when it is plain ASCII (its length, known from measuring it). */
  textBytes: number | undefined;

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

  /** Measures the committed body and keeps its text, which finish() can turn into the final text. */
  measureWhole(): Cost {
    this.wholeText = serialise(this.envelope(), this.stats);
    return costOf(this.wholeText);
  }

  countDigitsFor(key: string): number {
    return key === this.countKey ? digitsOf(this.body.count as number) : 0;
  }

  /**
   * Runs the ladder; returns the cost of the committed envelope (measured with tokens_estimated 0) and
   * whether that cost came straight from serialising it.
   */
  run(): { cost: Cost; fits: boolean; exact: boolean } {
    const result = (cost: Cost, exact = false) => ({ cost, fits: fitsBudget(cost, this.budget), exact });
    let whole: Cost | undefined;
    if (this.looksSmall()) {
      // Most answers are a few KB: one plain serialisation settles them faster than any skeleton.
      whole = this.measureWhole();
      if (fitsBudget(whole, this.budget)) return result(whole, true);
    }
    let current: Cost | undefined;
    if (this.graph) {
      current = this.graphRung();
      if (fitsBudget(current, this.budget)) return result(current);
    }
    for (const rung of [() => this.listRung(), () => this.bucketRung(), () => this.memberRung()]) {
      current = rung() ?? current;
      if (current !== undefined && fitsBudget(current, this.budget)) return result(current);
    }
    const afterStrings = this.stringRung();
    if (afterStrings !== undefined) return result(afterStrings);
    if (current !== undefined) return result(current);
    // Nothing anywhere could be cut: the body as it is, priced exactly.
    return result(whole ?? this.measureWhole(), true);
  }

  /**
   * A guess from the top level alone (short lists, short strings). It only picks the cheaper way to
   * measure: a wrong guess costs one extra serialisation, never a wrong result.
   */
  private looksSmall(): boolean {
    let chars = 0;
    for (const key in this.body) {
      const value = this.body[key];
      if (typeof value === 'string') chars += value.length;
      else if (Array.isArray(value)) chars += value.length * 64;
      if (chars > this.budget / 2) return false;
    }
    return true;
  }

  /** Largest common cap at which the envelope fits; see the ladder note at the top of the file. */
  searchCap(skeleton: Cost, parts: Part[], groups: Cost[], minCap: number): CapSearch {
    const maxCap = parts.reduce((max, part) => Math.max(max, part.piece.length), 0);
    const alreadyTruncated = this.meta.truncated === true;
    const countSlack = parts.reduce((max, part) => Math.max(max, part.countDigits), 0) + 1;
    const evaluate = (cap: number): { cost: Cost; cut: boolean } => {
      const cost = { a: skeleton.a, n: skeleton.n };
      const cutPerGroup = new Array<number>(groups.length).fill(0);
      const capDigits = digitsOf(cap);
      let cut = false;
      for (const part of parts) {
        part.piece.addCost(cap, cost);
        if (part.piece.length > cap) {
          cut = true;
          add(cost, part.entry);
          if (part.withKept) cost.a += capDigits;
          if (part.countDigits > 0) cost.a += capDigits - part.countDigits;
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
      for (const part of parts) part.piece.addCost(cap, cost);
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
      for (const bucket of buckets) setOwn(dict, bucket, []);
      setOwn(skeleton, key, dict);
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
        setOwn(dict, bucket, list.slice(0, found.cap));
        setOwn(record, bucket, { from: list.length, to: found.cap });
      }
      if (Object.keys(record).length === 0) continue;
      setOwn(next, key, dict);
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
        if (next[key] === this.body[key]) setOwn(next, key, [...(this.body[key] as unknown[])]);
        const outer = next[key] as unknown[];
        const original = (this.body[key] as unknown[])[index] as Json;
        if (outer[index] === original) outer[index] = { ...original };
        setOwn(outer[index] as Json, member, listFor(original[member] as unknown[]));
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
      if (list.length > found.cap) setOwn(record, path, { from: list.length, to: found.cap });
    }
    this.body = rebuild((list) => (list.length > found.cap ? list.slice(0, found.cap) : list));
    this.meta.truncated_members = record;
    this.markCut('members');
    return found.cost;
  }

  // Rung 4: the string safety net.
  stringRung(): Cost | undefined {
    const strings: MeasuredString[] = [];
    const paths: PathNode[] = [];
    // One walk both collects the strings and builds the skeleton (each string emptied).
    const skeleton = mapStrings(this.body, (value, path) => {
      strings.push(new MeasuredString(value));
      paths.push(path);
      return '';
    });
    if (strings.length === 0) return undefined;
    const skeletonCost = this.measureEnvelope(skeleton);
    const group = costOf(',"truncated_string_fields":[]');
    // The path's price is needed only when a probe cuts the string, so name it on first use.
    const names: string[] = [];
    const nameOf = (i: number): string => {
      names[i] ??= pathName(paths[i]!);
      return names[i];
    };
    const parts: Part[] = strings.map((piece, i) => {
      let entry: Cost | undefined;
      return {
        piece,
        group: 0,
        get entry(): Cost {
          entry ??= costOf(JSON.stringify(nameOf(i)));
          return entry;
        },
        withKept: false,
        countDigits: 0,
      };
    });
    const found = this.searchCap(skeletonCost, parts, [group], TRUNCATION_SUFFIX.length);
    if (!found.cut) return found.cost;
    const cutFields: string[] = [];
    let index = 0;
    this.body = mapStrings(this.body, (value) => {
      const i = index++;
      if (value.length <= found.cap) return value;
      cutFields.push(nameOf(i));
      return strings[i]!.cut(found.cap);
    });
    this.meta.truncated_string_fields = cutFields;
    this.markCut('strings');
    return found.cost;
  }

  // Rung 0: the coherent subgraph.
  graphRung(): Cost {
    const nodes = this.body.nodes as unknown[];
    const edges = this.body.edges as unknown[];
    const n = nodes.length;
    const m = edges.length;
    const skeletonCost = this.measureEnvelope({ ...this.body, nodes: [], edges: [] });
    // Most exports fit the 5 MB tier: then one bulk serialisation answers faster than sizing every item.
    if (this.graphProbablyFits(skeletonCost, nodes, edges)) {
      const whole = this.measureEnvelope(this.body);
      if (fitsBudget(whole, this.budget)) return whole;
    }

    const indexById = new Map<unknown, number>();
    for (let i = 0; i < n; i++) {
      const id = nodeId(nodes[i]);
      if (id !== undefined && !indexById.has(id)) indexById.set(id, i);
    }
    const degree = new Int32Array(n);
    const source = new Int32Array(m).fill(-1);
    const target = new Int32Array(m).fill(-1);
    for (let j = 0; j < m; j++) {
      const [s, t] = edgeEnds(edges[j]);
      const si = indexById.get(s);
      const ti = indexById.get(t);
      if (si === undefined || ti === undefined) continue;
      source[j] = si;
      target[j] = ti;
      degree[si]!++;
      degree[ti]!++;
    }
    // Rank nodes by degree (ties: original order); an edge needs the top-K for K > both its ends' ranks.
    // A counting sort: degrees are small integers, and it is stable, so ties keep the original order.
    let maxDegree = 0;
    for (let i = 0; i < n; i++) maxDegree = Math.max(maxDegree, degree[i]!);
    const slot = new Int32Array(maxDegree + 2);
    for (let i = 0; i < n; i++) slot[maxDegree - degree[i]! + 1]!++;
    for (let d = 1; d <= maxDegree + 1; d++) slot[d]! += slot[d - 1]!;
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[slot[maxDegree - degree[i]!]!++] = i;
    const rank = new Int32Array(n);
    for (let r = 0; r < n; r++) rank[order[r]!] = r;
    const need = new Int32Array(m);
    const edgesUpTo = new Int32Array(n + 2); // edges whose need ≤ k, after the running sum below
    for (let j = 0; j < m; j++) {
      const s = source[j]!;
      const t = target[j]!;
      need[j] = s < 0 || t < 0 ? n + 1 : Math.max(rank[s]!, rank[t]!) + 1;
      edgesUpTo[need[j]!]!++;
    }
    for (let k = 1; k <= n + 1; k++) edgesUpTo[k]! += edgesUpTo[k - 1]!;
    const edgeOrder = new Int32Array(m); // edges by need, stable: a counting sort
    const next = Int32Array.from({ length: n + 2 }, (_, k) => (k === 0 ? 0 : edgesUpTo[k - 1]!));
    for (let j = 0; j < m; j++) edgeOrder[next[need[j]!]!++] = j;
    // Items are sized in the order a growing K would keep them, and only as far as the search needs.
    const nodeList = new MeasuredList(nodes, this.stats, order);
    const edgeList = new MeasuredList(edges, this.stats, edgeOrder);

    const alreadyTruncated = this.meta.truncated === true;
    const content = (k: number): Cost => {
      const cost = { a: skeletonCost.a, n: skeletonCost.n };
      nodeList.addCost(k, cost);
      edgeList.addCost(edgesUpTo[k]!, cost);
      return cost;
    };
    const evaluate = (k: number): Cost => {
      const cost = content(k);
      const kept = edgesUpTo[k]!;
      cost.a +=
        `,"truncated_subgraph":true,"truncated_nodes_from":${n},"truncated_nodes_to":${k},"truncated_edges_from":${m},"truncated_edges_to":${kept}`.length;
      if (!alreadyTruncated) cost.a -= 1;
      if (this.countKey === 'nodes') cost.a += digitsOf(k) - digitsOf(n);
      if (this.countKey === 'edges') cost.a += digitsOf(kept) - digitsOf(m);
      return cost;
    };
    const countSlack = 1 + Math.max(digitsOf(n), digitsOf(m));
    let bound = n;
    for (let step = 16; ; step *= 2) {
      const k = Math.min(step, n);
      nodeList.measureTo(k);
      edgeList.measureTo(edgesUpTo[k]!);
      if (weight(content(k)) - countSlack > this.budget) {
        bound = k - 1;
        break;
      }
      if (k === n) break;
    }
    if (bound === n) {
      edgeList.measureTo(m); // the dangling edges too, which no K keeps
      const whole = { a: skeletonCost.a, n: skeletonCost.n };
      nodeList.addCost(n, whole);
      edgeList.addCost(m, whole);
      if (fitsBudget(whole, this.budget)) return whole;
    }
    let lo = 0;
    if (fitsBudget(evaluate(0), this.budget)) {
      let hi = bound;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (fitsBudget(evaluate(mid), this.budget)) lo = mid;
        else hi = mid - 1;
      }
    }
    const cost = evaluate(lo);
    const edgesKept = edgesUpTo[lo]!;
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

  /** Extrapolates from the first items; only decides which measurement is cheaper, never the outcome. */
  private graphProbablyFits(skeleton: Cost, nodes: unknown[], edges: unknown[]): boolean {
    const sample = (list: unknown[]): number => {
      const count = Math.min(list.length, 64);
      let total = 0;
      for (let i = 0; i < count; i++) total += weight(costOf(JSON.stringify(list[i]) ?? 'null')) + 1;
      return count === 0 ? 0 : (total / count) * list.length;
    };
    return weight(skeleton) + sample(nodes) + sample(edges) <= 0.8 * this.budget;
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
    if (exact && !this.meta.envelope_unshrinkable) {
      this.text = withTokens(this.wholeText, settled.tokens);
      if (this.text !== undefined && final.n === 0) this.textBytes = this.text.length;
    }
    // Uncut bodies are priced from whole items, which leaves nothing for the model to get wrong; a cut
    // body is small, so checking it costs next to nothing.
    const worthChecking = this.meta.truncated === true && settled.length <= VERIFY_BELOW_CHARS;
    if (exact || !(this.verify || worthChecking)) return;
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

const UNSETTLED_TAIL = '"tokens_estimated":0,"truncated":false}}}';

/**
 * The final text from the one measured with tokens_estimated 0: meta is the body's last key and those
 * are its last two keys, so the number sits in a fixed tail. Anything else is left to the caller's
 * JSON.stringify (undefined).
 */
function withTokens(measured: string | undefined, tokens: number): string | undefined {
  if (measured === undefined || !measured.endsWith(UNSETTLED_TAIL)) return undefined;
  return `${measured.slice(0, -UNSETTLED_TAIL.length)}"tokens_estimated":${tokens},"truncated":false}}}`;
}

/** Small enough that checking the model against the text costs next to nothing. */
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

/** A path built only when a string is actually cut: most strings a walk passes are never named. */
interface PathNode {
  parent: PathNode | undefined;
  key: string | number;
}

function pathName(node: PathNode): string {
  const keys: (string | number)[] = [];
  for (let at: PathNode | undefined = node; at !== undefined; at = at.parent) keys.push(at.key);
  let path = '';
  for (let i = keys.length - 1; i >= 0; i--) path = joinPath(path, keys[i]!);
  return path;
}

/**
 * Copy-on-write map over the strings of ≥ SCALAR_TRIM_FLOOR_CHARS in a body (meta excluded), in JSON
 * order; unchanged subtrees are shared, not copied.
 */
function mapStrings(body: Json, fn: (value: string, path: PathNode) => string): Json {
  const visit = (value: unknown, path: PathNode): unknown => {
    if (typeof value === 'string') return value.length >= SCALAR_TRIM_FLOOR_CHARS ? fn(value, path) : value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        const next = visit(item, { parent: path, key: i });
        if (next !== item) {
          out ??= value.slice();
          out[i] = next;
        }
      }
      return out ?? value;
    }
    if (isTransparentObject(value)) {
      let out: Json | undefined;
      for (const key of Object.keys(value)) {
        const item = value[key];
        const next = visit(item, { parent: path, key });
        if (next !== item) {
          out ??= { ...value };
          setOwn(out, key, next);
        }
      }
      return out ?? value;
    }
    return value;
  };
  let out: Json | undefined;
  for (const key of Object.keys(body)) {
    if (key === 'meta') continue;
    const item = body[key];
    const next = visit(item, { parent: undefined, key });
    if (next !== item) {
      out ??= { ...body };
      setOwn(out, key, next);
    }
  }
  return out ?? body;
}

/** ok() with its serialisation counters (the benchmark and tests read them). */
export function okWithStats(
  data: unknown,
  options: OkOptions = {},
  internal: InternalOptions = {},
): {
  envelope: { ok: true; data: unknown };
  stats: TrimStats;
  text: string | undefined;
  textBytes: number | undefined;
} {
  if (!isPlainObject(data))
    return { envelope: { ok: true, data }, stats: newStats(), text: undefined, textBytes: undefined };
  const meta: Json = {};
  mergeCallerMeta(meta, data.meta, 'data.meta');
  mergeCallerMeta(meta, options.meta, 'options.meta');
  meta.tokens_estimated = 0;
  meta.truncated = false;
  // Copied key by key rather than spread-then-delete: a delete can drop V8 into a slower object mode.
  const body: Json = {};
  for (const key of Object.keys(data)) {
    if (key !== 'meta') setOwn(body, key, data[key]);
  }
  body.meta = meta;
  const trimmer = new Trimmer(body, meta, internal);
  const applyBudget = options.applyBudget !== false;
  if (!applyBudget) {
    trimmer.finish(trimmer.measureWhole(), true, false, true);
  } else {
    const { cost, fits, exact } = trimmer.run();
    trimmer.finish(cost, fits, true, exact);
  }
  return {
    envelope: trimmer.envelope(),
    stats: trimmer.stats,
    text: trimmer.text,
    textBytes: trimmer.textBytes,
  };
}
