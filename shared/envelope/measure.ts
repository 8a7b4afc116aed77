// Sizes of the pieces the trim ladder can cut, measured on demand and only as far as needed. The
// envelope's size at any cut is the size of a skeleton (the envelope with those pieces emptied, serialised
// once) plus prefix sums of the pieces: no probe ever serialises the body again.
import { countChars, settleTokens } from './budget.ts';
import { TRUNCATION_SUFFIX } from './constants.ts';

/** ASCII and non-ASCII UTF-16 code units of a piece of envelope text. */
export interface Cost {
  a: number;
  n: number;
}

export const ZERO: Readonly<Cost> = Object.freeze({ a: 0, n: 0 });

export function costOf(text: string): Cost {
  const { ascii, nonAscii } = countChars(text);
  return { a: ascii, n: nonAscii };
}

/**
 * A lower bound of the budget size of a text with this cost (budgetSize = 4·ceil(a/4) + 4n ≥ a + 4n), so
 * "weight over budget" proves "over budget" without settling the token count.
 */
export function weight(cost: Cost): number {
  return cost.a + 4 * cost.n;
}

/** Whether an envelope of this cost (measured with `tokens_estimated: 0`) fits the budget once settled. */
export function fitsBudget(cost: Cost, budget: number): boolean {
  return settleTokens(cost.a, cost.n).size <= budget;
}

/** Serialisation counters, so the benchmark can show that no probe re-serialises the body. */
export interface TrimStats {
  /** JSON.stringify calls over a whole envelope or skeleton (the final check included). */
  serialisations: number;
  /** Characters those calls produced, to compare with the payload's own size. */
  serialisedChars: number;
  /** List items serialised to size them: once in a chunk, once more only in a chunk a probe cut through. */
  itemsMeasured: number;
  itemChars: number;
  /** Times the final check disagreed with the model (always 0 unless the model has a bug). */
  modelMismatches: number;
  /** Ladder rungs that cut something, in order. */
  rungs: string[];
}

export function newStats(): TrimStats {
  return {
    serialisations: 0,
    serialisedChars: 0,
    itemsMeasured: 0,
    itemChars: 0,
    modelMismatches: 0,
    rungs: [],
  };
}

export function serialise(value: unknown, stats: TrimStats): string {
  const text = JSON.stringify(value);
  stats.serialisations++;
  stats.serialisedChars += text.length;
  return text;
}

/** Items serialised per JSON.stringify call: amortises the per-call cost, still cheap to redo in part. */
const CHUNK = 64;

/**
 * A list whose items are sized lazily, front to back (or in a given order). Items are serialised in chunks
 * of CHUNK with one JSON.stringify call each; only a chunk where a probe actually cuts is serialised again,
 * item by item. `addCost(k)` is the cost of the first k items in that order with the commas between them.
 */
export class MeasuredList {
  readonly items: readonly unknown[];
  private readonly order: ArrayLike<number> | undefined;
  // Prefix sums at chunk boundaries: cost of the first c·CHUNK items (commas between them excluded).
  private readonly chunkA: number[] = [0];
  private readonly chunkN: number[] = [0];
  // Per-item prefix sums inside the chunks a probe cut through.
  private readonly inner = new Map<number, { a: number[]; n: number[] }>();
  private readonly stats: TrimStats;

  constructor(items: readonly unknown[], stats: TrimStats, order?: ArrayLike<number>) {
    this.items = items;
    this.stats = stats;
    this.order = order;
  }

  get length(): number {
    return this.items.length;
  }

  private item(position: number): unknown {
    return this.items[this.order === undefined ? position : this.order[position]!];
  }

  /** Makes every `addCost(k)` with k ≤ count answerable. */
  measureTo(count: number): void {
    const target = Math.min(count, this.items.length);
    for (let c = this.chunkA.length - 1; c * CHUNK < target; c++) {
      const start = c * CHUNK;
      const end = Math.min(start + CHUNK, this.items.length);
      const chunk = this.order === undefined ? this.items.slice(start, end) : [];
      if (this.order !== undefined) for (let i = start; i < end; i++) chunk.push(this.item(i));
      const text = JSON.stringify(chunk);
      const { ascii, nonAscii } = countChars(text);
      this.stats.itemsMeasured += end - start;
      this.stats.itemChars += text.length;
      // Brackets and separating commas are ASCII: what remains is the items' own text.
      this.chunkA.push(this.chunkA[c]! + ascii - 2 - (end - start - 1));
      this.chunkN.push(this.chunkN[c]! + nonAscii);
    }
  }

  private innerPrefix(c: number): { a: number[]; n: number[] } {
    let prefix = this.inner.get(c);
    if (prefix !== undefined) return prefix;
    prefix = { a: [0], n: [0] };
    const start = c * CHUNK;
    const end = Math.min(start + CHUNK, this.items.length);
    for (let i = start; i < end; i++) {
      // Inside an array, JSON writes undefined, functions and symbols as null.
      const text = JSON.stringify(this.item(i)) ?? 'null';
      const { ascii, nonAscii } = countChars(text);
      this.stats.itemsMeasured++;
      this.stats.itemChars += text.length;
      prefix.a.push(prefix.a[i - start]! + ascii);
      prefix.n.push(prefix.n[i - start]! + nonAscii);
    }
    this.inner.set(c, prefix);
    return prefix;
  }

  /** Adds the cost of the first `count` items with their commas; `count` must already be measured. */
  addCost(count: number, into: Cost): void {
    const k = Math.min(count, this.items.length);
    const c = Math.floor(k / CHUNK);
    const rest = k - c * CHUNK;
    into.a += this.chunkA[c]! + Math.max(k - 1, 0);
    into.n += this.chunkN[c]!;
    if (rest > 0) {
      const prefix = this.innerPrefix(c);
      into.a += prefix.a[rest]!;
      into.n += prefix.n[rest]!;
    }
  }
}

const SUFFIX_COST = costOf(TRUNCATION_SUFFIX);
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters JSON escapes
const NEEDS_SCAN = /["\\\u0000-\u001f\u0080-\uffff]/;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * A long string the safety net may cut. Costs exclude the quotes (the skeleton keeps `""`). Only the
 * prefix a probe needs is ever looked at: its leading run of plain ASCII (nothing JSON escapes) costs its
 * length and is found by a native regex search; from the first other character on, characters are priced
 * one by one into prefix sums.
 */
export class MeasuredString {
  readonly value: string;
  /** Characters examined so far. */
  private examined = 0;
  /** Length of the leading plain run, once its end is found (until then every examined char is plain). */
  private plainRun = -1;
  // Prefix sums past the plain run: relA[i] is the cost of value[plainRun, plainRun + i).
  private readonly relA: number[] = [0];
  private readonly relN: number[] = [0];

  constructor(value: string) {
    this.value = value;
  }

  get length(): number {
    return this.value.length;
  }

  /** Examine far enough to price every cap up to `cap` characters. */
  measureTo(cap: number): void {
    const s = this.value;
    const target = Math.min(cap, s.length);
    if (this.examined >= target) return;
    if (this.plainRun < 0) {
      const hit = s.slice(this.examined, target).search(NEEDS_SCAN);
      if (hit < 0) {
        this.examined = target;
        return;
      }
      this.plainRun = this.examined + hit;
      this.examined = this.plainRun;
    }
    for (let i = this.examined; i < target; i++) {
      const code = s.charCodeAt(i);
      let a = 0;
      let n = 0;
      if (code < 0x80) {
        if (code === 0x22 || code === 0x5c) a = 2;
        else if (code < 0x20)
          a = code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
        else a = 1;
      } else if (isHighSurrogate(code) && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
        n = 1; // each half of a pair is one non-ASCII code unit; the low half follows as its own step
      } else if (isLowSurrogate(code) && i > 0 && isHighSurrogate(s.charCodeAt(i - 1))) {
        n = 1;
      } else if (isHighSurrogate(code) || isLowSurrogate(code)) {
        a = 6; // a lone surrogate is written as \udxxx
      } else {
        n = 1;
      }
      const k = i - this.plainRun;
      this.relA.push(this.relA[k]! + a);
      this.relN.push(this.relN[k]! + n);
    }
    this.examined = target;
  }

  /** Where a cut keeping at most `keep` characters falls: never between the halves of a surrogate pair. */
  cutIndex(keep: number): number {
    const s = this.value;
    if (
      keep > 0 &&
      keep < s.length &&
      isHighSurrogate(s.charCodeAt(keep - 1)) &&
      isLowSurrogate(s.charCodeAt(keep))
    ) {
      return keep - 1;
    }
    return keep;
  }

  private addPrefix(end: number, into: Cost): void {
    if (this.plainRun < 0 || end <= this.plainRun) {
      into.a += end;
      return;
    }
    const k = end - this.plainRun;
    into.a += this.plainRun + this.relA[k]!;
    into.n += this.relN[k]!;
  }

  /** Adds the cost of the string capped at `cap` characters (suffix included); `cap` ≥ the suffix length. */
  addCost(cap: number, into: Cost): void {
    if (this.value.length <= cap) {
      this.addPrefix(this.value.length, into);
      return;
    }
    this.addPrefix(this.cutIndex(cap - TRUNCATION_SUFFIX.length), into);
    into.a += SUFFIX_COST.a;
    into.n += SUFFIX_COST.n;
  }

  cut(cap: number): string {
    if (this.value.length <= cap) return this.value;
    return this.value.slice(0, this.cutIndex(cap - TRUNCATION_SUFFIX.length)) + TRUNCATION_SUFFIX;
  }
}
