// Sizes of the pieces the trim ladder can cut, each measured once and on demand. The envelope's size at
// any cut is then the size of a skeleton (the envelope with those pieces emptied, serialised once) plus
// prefix sums of the pieces: no probe ever serialises the body again.
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
  /** List items serialised one by one to size them (each at most once). */
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

/** A list whose items are serialised lazily, front to back, each at most once. */
export class MeasuredList {
  readonly items: readonly unknown[];
  // Prefix sums: cumulative cost of the first k items (separating commas excluded).
  private readonly prefixA: number[] = [0];
  private readonly prefixN: number[] = [0];
  private readonly stats: TrimStats;

  constructor(items: readonly unknown[], stats: TrimStats) {
    this.items = items;
    this.stats = stats;
  }

  get length(): number {
    return this.items.length;
  }

  get measured(): number {
    return this.prefixA.length - 1;
  }

  measureTo(count: number): void {
    const target = Math.min(count, this.items.length);
    for (let i = this.measured; i < target; i++) {
      // Inside an array, JSON writes undefined, functions and symbols as null.
      const text = JSON.stringify(this.items[i]) ?? 'null';
      const { ascii, nonAscii } = countChars(text);
      this.stats.itemsMeasured++;
      this.stats.itemChars += text.length;
      this.prefixA.push(this.prefixA[i]! + ascii);
      this.prefixN.push(this.prefixN[i]! + nonAscii);
    }
  }

  /** Cost of the first `count` items with their commas; `count` must already be measured. */
  cost(count: number): Cost {
    const k = Math.min(count, this.items.length);
    return { a: this.prefixA[k]! + Math.max(k - 1, 0), n: this.prefixN[k]! };
  }

  /** Cost of one item (already measured). */
  itemCost(index: number): Cost {
    return {
      a: this.prefixA[index + 1]! - this.prefixA[index]!,
      n: this.prefixN[index + 1]! - this.prefixN[index]!,
    };
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
 * A long string the safety net may cut. Costs exclude the quotes (the skeleton keeps `""`). A string of
 * plain ASCII without characters JSON escapes costs its length; others are scanned once, lazily, as far as
 * a probe needs.
 */
export class MeasuredString {
  readonly value: string;
  private readonly plain: boolean;
  private readonly prefixA: number[] = [0];
  private readonly prefixN: number[] = [0];

  constructor(value: string) {
    this.value = value;
    this.plain = !NEEDS_SCAN.test(value);
  }

  get length(): number {
    return this.value.length;
  }

  /** Scan far enough to price every cap up to `cap` characters. */
  measureTo(cap: number): void {
    if (this.plain) return;
    const s = this.value;
    const target = Math.min(cap, s.length);
    let i = this.prefixA.length - 1;
    while (i < target) {
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
      this.prefixA.push(this.prefixA[i]! + a);
      this.prefixN.push(this.prefixN[i]! + n);
      i++;
    }
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

  private prefixCost(end: number): Cost {
    if (this.plain) return { a: end, n: 0 };
    return { a: this.prefixA[end]!, n: this.prefixN[end]! };
  }

  /** Cost of the string once capped at `cap` characters (suffix included); `cap` ≥ the suffix length. */
  cost(cap: number): Cost {
    if (this.value.length <= cap) return this.prefixCost(this.value.length);
    const prefix = this.prefixCost(this.cutIndex(cap - TRUNCATION_SUFFIX.length));
    return { a: prefix.a + SUFFIX_COST.a, n: prefix.n + SUFFIX_COST.n };
  }

  cut(cap: number): string {
    if (this.value.length <= cap) return this.value;
    return this.value.slice(0, this.cutIndex(cap - TRUNCATION_SUFFIX.length)) + TRUNCATION_SUFFIX;
  }
}
