// Turns what a user or agent typed into safe FTS5 MATCH expressions. Nothing the caller types is ever
// passed to FTS5 as syntax: every term is a double-quoted string, so quotes, NEAR, `*`, `-`, `:` and
// parentheses are plain text. A query answers `validation` only when no searchable character remains.
//
// Two indexes back each corpus (see migration 004): unicode61 for word matches and trigram for
// substrings. The plan says which to try, in order:
//   1. `words`      every term as a phrase (a prefix from three characters on), in the unicode61 table (AND);
//   2. `any_words`  the same terms OR-ed, when AND found nothing and there is more than one term;
//   3. `substring`  the trigram table, first for queries with CJK (no spaces between words, so unicode61
//                   sees a whole sentence as one token) and last as a fallback for everything else (finds
//                   Arabic words behind a clitic prefix, parts of identifiers). Trigram cannot match fewer
//                   than three characters, so shorter terms (two-character CJK words are common) become
//                   `instr` filters on the text instead.
import { ToolError } from '../errors.ts';

export interface QueryTerm {
  /** The words of one whitespace-separated chunk, lower-cased (`config.ts` → `config`, `ts`). */
  words: string[];
  /** The chunk with edge punctuation trimmed, lower-cased: what the substring index looks for. */
  raw: string;
}

export interface FtsPlan {
  terms: QueryTerm[];
  /** True when a term holds a script written without spaces; the word index cannot split those. */
  cjk: boolean;
  /** unicode61: all terms, each a quoted prefix phrase. */
  wordsAll: string;
  /** unicode61: any term. Null with a single term (it would equal wordsAll). */
  wordsAny: string | null;
  /** trigram: quoted terms of three or more characters, AND-ed; null when every term is shorter. */
  substringMatch: string | null;
  /** Terms under three characters, checked with instr() on the lower-cased text. */
  shortTerms: string[];
}

const MAX_TERMS = 32;
const SNIPPET_SCAN = 20_000;
const MAX_TERM_CHARS = 100;
// Whitespace and FTS5 syntax characters separate terms; `.`, `-`, `_`, `/` stay inside one (config.ts, a/b).
const SEPARATORS = /[\s"()*:^{}[\]+,;]+/u;
const WORD = /[\p{L}\p{N}\p{M}_]+/gu;
const EDGE_PUNCT = /^[^\p{L}\p{N}\p{M}_]+|[^\p{L}\p{N}\p{M}_]+$/gu;
/** One character of a script written without spaces between words (memory/pg-text.ts splits on it too). */
export const CJK =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** Throws `validation` when nothing searchable remains. */
export function planQuery(query: string): FtsPlan {
  const terms: QueryTerm[] = [];
  // Control characters (NUL ends an FTS5 string early) and lone surrogates are never searchable text.
  const text = query
    .replace(/[\p{Cc}\p{Cs}]/gu, ' ')
    .normalize('NFKC')
    .toLowerCase();
  for (const chunk of text.split(SEPARATORS)) {
    const words = chunk.match(WORD);
    if (!words) continue;
    const raw = chunk.replace(EDGE_PUNCT, '').slice(0, MAX_TERM_CHARS);
    terms.push({ words: words.map((w) => w.slice(0, MAX_TERM_CHARS)), raw });
    if (terms.length === MAX_TERMS) break;
  }
  if (terms.length === 0) {
    throw new ToolError(
      'validation',
      'query has no searchable words (only punctuation or FTS operators): pass at least one word or number',
    );
  }
  // Prefix matching (`pool` finds `pooling`) only from three characters: `a*` or `or*` would expand to a
  // large share of the vocabulary and cost more than it finds.
  const phrases = terms.map((t) => phraseOf(t.words, [...(t.words.at(-1) ?? '')].length >= 3));
  const all = independent(phrases, 'all').map((p) => p.text);
  const any = independent(phrases, 'any').map((p) => p.text);
  // Every term must occur as a substring: one inside another adds nothing but work.
  const raws = [...new Set(terms.map((t) => t.raw))].filter(
    (r, _, list) => !list.some((other) => other !== r && other.includes(r)),
  );
  const long = raws.filter((r) => [...r].length >= 3);
  return {
    terms,
    cjk: terms.some((t) => CJK.test(t.raw)),
    wordsAll: all.join(' AND '),
    wordsAny: any.length > 1 ? any.join(' OR ') : null,
    substringMatch: long.length > 0 ? long.map(quote).join(' AND ') : null,
    shortTerms: raws.filter((r) => [...r].length < 3),
  };
}

/** A quoted FTS5 phrase, and the words it matches as the unicode61 tokenizer sees them. */
export interface Phrase {
  /** The FTS5 text: `"a b"`, or `"a b"*` when the last word may be a prefix. */
  text: string;
  /** The words FTS5 will look for: diacritics removed and `_` a separator, as unicode61 reads them. */
  words: string[];
  prefix: boolean;
}

const tokenWords = (words: string[]) =>
  words.flatMap((w) =>
    w
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .split('_')
      .filter((part) => part !== ''),
  );

export function phraseOf(words: string[], prefix: boolean): Phrase {
  return { text: `${quote(words.join(' '))}${prefix ? '*' : ''}`, words: tokenWords(words), prefix };
}

/** Whether every place `a` matches, `b` matches too (b's words lie within a's, prefixes allowing). */
function implies(a: Phrase, b: Phrase): boolean {
  const m = a.words.length;
  const k = b.words.length;
  if (k === 0 || k > m) return false;
  for (let o = 0; o + k <= m; o++) {
    let ok = true;
    for (let i = 0; i < k && ok; i++) {
      const aw = a.words[o + i]!;
      const bw = b.words[i]!;
      const aPrefix = a.prefix && o + i === m - 1;
      const bPrefix = b.prefix && i === k - 1;
      ok = bPrefix ? aw.startsWith(bw) : !aPrefix && aw === bw;
    }
    if (ok) return true;
  }
  return false;
}

/**
 * The phrases that each add something: for `all` (AND) a phrase another one implies is dropped, for
 * `any` (OR) a phrase that implies another. Besides being redundant, such pairs match the same words of
 * a row, and FTS5's ranking works through every pair of overlapping matches: thirty-two spellings of
 * one word (`a`, `á`, `a_`, …) against a row that repeats it made one search take minutes.
 */
export function independent(phrases: Phrase[], mode: 'all' | 'any'): Phrase[] {
  const unique: Phrase[] = [];
  // A phrase of separators only (`_`) names no word; keep one only if nothing else is left.
  const worded = phrases.filter((p) => p.words.length > 0);
  for (const p of worded.length > 0 ? worded : phrases.slice(0, 1))
    if (!unique.some((u) => u.text === p.text || (implies(u, p) && implies(p, u)))) unique.push(p);
  return unique.filter((p) =>
    mode === 'all'
      ? !unique.some((q) => q !== p && implies(q, p))
      : !unique.some((q) => q !== p && implies(p, q)),
  );
}

export type MatchMode = 'words' | 'any_words' | 'substring';

/**
 * Runs the plan's steps in order and keeps the first that finds anything. `run` executes one step and
 * returns its rows; the caller owns the SQL so each corpus keeps its own prepared statements.
 */
export function runPlan<R>(
  plan: FtsPlan,
  run: (
    step: { mode: 'words'; match: string } | { mode: 'substring'; match: string | null; short: string[] },
  ) => R[],
): { rows: R[]; mode: MatchMode } {
  const substring = () => run({ mode: 'substring', match: plan.substringMatch, short: plan.shortTerms });
  if (plan.cjk) return { rows: substring(), mode: 'substring' };
  const all = run({ mode: 'words', match: plan.wordsAll });
  if (all.length > 0) return { rows: all, mode: 'words' };
  if (plan.wordsAny !== null) {
    const any = run({ mode: 'words', match: plan.wordsAny });
    if (any.length > 0) return { rows: any, mode: 'any_words' };
  }
  return { rows: substring(), mode: 'substring' };
}

/**
 * A window of `text` around the first term found, with matches wrapped in `**`. Computed here rather than
 * with FTS5's snippet() because the substring path may match through instr(), which has no snippet.
 */
export function makeSnippet(text: string, terms: QueryTerm[], width = 200): string {
  // Bounded work whatever the row holds: the window is looked for in the text's first SNIPPET_SCAN chars.
  const flat = (text.length > SNIPPET_SCAN ? text.slice(0, SNIPPET_SCAN) : text).replace(/\s+/gu, ' ').trim();
  const lower = flat.toLowerCase();
  // One Latin letter would light up half the text; a single CJK character is a word.
  const needles = [...new Set(terms.flatMap((t) => [t.raw, ...t.words]))]
    .filter((n) => n.length > 1 || CJK.test(n))
    .sort((a, b) => b.length - a.length);
  let first = -1;
  for (const n of needles) {
    const at = lower.indexOf(n);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  const start = first <= width / 4 ? 0 : Math.max(0, first - Math.floor(width / 4));
  const end = Math.min(flat.length, start + width);
  let window = flat.slice(start, end);
  if (needles.length > 0) {
    // Latin-like needles only at a word start (the word index matches prefixes); others anywhere.
    const pattern = new RegExp(
      needles
        .map((n) =>
          /^[\p{Script=Latin}\p{N}_]/u.test(n) ? `(?<![\\p{L}\\p{N}_])${escapeRegExp(n)}` : escapeRegExp(n),
        )
        .join('|'),
      'giu',
    );
    window = window.replace(pattern, (m) => `**${m}**`);
  }
  return `${start > 0 ? '…' : ''}${window}${end < flat.length || text.length > SNIPPET_SCAN ? '…' : ''}`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
