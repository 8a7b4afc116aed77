// Memory text as PostgreSQL full-text search, with no extension and whatever the server's locale. The hub
// tokenises here and hands PostgreSQL a tsvector literal, and builds each tsquery the same way, so both
// sides split and fold text identically (a C-locale server's own to_tsvector would not fold Cyrillic
// capitals, and its parser keeps `server/db/open.ts` as one token where SQLite's unicode61 sees four):
//
//  - words as unicode61 reads them: runs of letters, digits and marks (`_` and punctuation separate),
//    NFKC, lower-cased, diacritics removed, cut to 100 characters as planQuery cuts a query's words;
//  - scripts written without spaces (fts-query.ts CJK: Han, kana, Hangul, Thai, …) as every character
//    and every pair of neighbours, a unigram and a bigram at each position: a query of two or more such
//    characters is the phrase of its bigrams (`连接池` → '连接' <-> '接池'), a substring match through the
//    GIN index; one character is its unigram. This stands in for SQLite's trigram index (pg_trgm would
//    need an extension), and finds two-character words that trigram cannot.
//
// Lexemes hold only letters, digits and marks, so no quote or backslash ever needs escaping in a literal.
// Weights: title A, concepts B, narrative C; ts_rank's weight array gives them SQLite's 3 : 2 : 1.
import { CJK, type FtsPlan, independent, phraseOf } from '../search/fts-query.ts';

/** ts_rank's weights, {D, C, B, A}: title 1, concepts 2/3, narrative 1/3, as bm25(3, 1, 2) in SQLite. */
export const RANK_WEIGHTS = '{0.1, 0.3333, 0.6667, 1.0}';
/**
 * ts_rank's normalisation 1, rank / (1 + ln(length)): a long record that mentions a word once ranks below
 * a short one about it, as bm25's length normalisation does in SQLite (without it, a long narrative's
 * many mentions outweigh a title).
 */
export const RANK_NORMALIZATION = 1;

const MAX_WORD = 100;
/** tsvector's largest position; later words are not indexed (the title, first, always is). */
const MAX_POSITION = 16_383;
/** tsvector keeps no more positions of one lexeme. */
const MAX_POSITIONS = 256;
const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const MARKS = /\p{M}/gu;
const UNSEARCHABLE = /[\p{Cc}\p{Cs}]/gu;

/** The text as planQuery reads a query: control characters out, NFKC, lower case. */
export function foldText(text: string): string {
  return text.replace(UNSEARCHABLE, ' ').normalize('NFKC').toLowerCase();
}

const foldWord = (s: string) => s.slice(0, MAX_WORD).normalize('NFD').replace(MARKS, '');

interface Segment {
  cjk: boolean;
  chars: string[];
}

/** The runs of `folded` (letters, digits, marks), each split where it changes between CJK and not. */
function* segments(folded: string): Generator<Segment> {
  for (const match of folded.matchAll(RUN)) {
    let current: Segment | undefined;
    for (const ch of match[0]) {
      const cjk = CJK.test(ch);
      if (current && current.cjk === cjk) current.chars.push(ch);
      else {
        if (current) yield current;
        current = { cjk, chars: [ch] };
      }
    }
    if (current) yield current;
  }
}

type Weight = 'A' | 'B' | 'C';

/** A tsvector literal of title (A), concepts (B) and narrative (C). */
export function searchVector(fields: readonly [text: string, weight: Weight][]): string {
  const positions = new Map<string, string[]>();
  const add = (lexeme: string, pos: number, weight: Weight) => {
    if (lexeme === '' || pos > MAX_POSITION) return;
    const list = positions.get(lexeme);
    if (!list) positions.set(lexeme, [`${pos}${weight}`]);
    else if (list.length < MAX_POSITIONS) list.push(`${pos}${weight}`);
  };
  let pos = 1;
  for (const [text, weight] of fields) {
    for (const seg of segments(foldText(text))) {
      if (pos > MAX_POSITION) break;
      if (!seg.cjk) {
        add(foldWord(seg.chars.join('')), pos++, weight);
        continue;
      }
      const n = seg.chars.length;
      for (let i = 0; i < n; i++) {
        add(seg.chars[i]!, pos + i, weight);
        if (i + 1 < n) add(seg.chars[i]! + seg.chars[i + 1]!, pos + i, weight);
      }
      pos += n;
    }
    // A gap between fields: a phrase never runs from the title into the concepts.
    pos++;
  }
  const out: string[] = [];
  for (const [lexeme, list] of positions) out.push(`'${lexeme}':${list.join(',')}`);
  return out.join(' ');
}

/** What the substring fallback scans: the same fold as a query's terms. */
export function searchText(title: string, concepts: readonly string[], narrative: string): string {
  return foldText(`${title}\n${concepts.join(' ')}\n${narrative}`);
}

export interface PgQueries {
  /** Every term as a phrase (a prefix from three characters on), AND-ed; null when no term has a word. */
  words: string | null;
  /** The same terms OR-ed; null with fewer than two. */
  anyWords: string | null;
  /** For a query in a script without spaces: each term's words and bigram phrases, AND-ed. */
  cjk: string | null;
  /** What the scan looks for: each term's text, none that another contains. */
  substrings: string[];
}

const quote = (lexeme: string) => `'${lexeme}'`;

/** The tsquery literals of a plan (planQuery made it safe; this only rewrites it). */
export function pgQueries(plan: FtsPlan): PgQueries {
  // The phrases planQuery builds for FTS5, the same terms and the same reductions.
  const phrases = plan.terms.map((t) => phraseOf(t.words, [...(t.words.at(-1) ?? '')].length >= 3));
  const toQuery = (list: ReturnType<typeof independent>) =>
    list
      .filter((p) => p.words.length > 0)
      .map((p) => {
        const words = p.words.map((w) => quote(w.slice(0, MAX_WORD)));
        if (p.prefix) words[words.length - 1] += ':*';
        return words.length === 1 ? words[0]! : `(${words.join(' <-> ')})`;
      });
  const all = toQuery(independent(phrases, 'all'));
  const any = toQuery(independent(phrases, 'any'));
  const raws = [...new Set(plan.terms.map((t) => t.raw))].filter(
    (r, _, list) => r !== '' && !list.some((other) => other !== r && other.includes(r)),
  );
  const cjk = plan.cjk ? raws.map(cjkTerm).filter((q) => q !== null) : [];
  return {
    words: all.length > 0 ? all.join(' & ') : null,
    anyWords: any.length > 1 ? any.join(' | ') : null,
    cjk: cjk.length > 0 ? cjk.join(' & ') : null,
    substrings: raws,
  };
}

/** One term as positions in the vector: words and bigram chains, each part right after the last. */
function cjkTerm(raw: string): string | null {
  const parts: { query: string; width: number; word: boolean }[] = [];
  for (const seg of segments(raw)) {
    if (!seg.cjk) {
      const word = foldWord(seg.chars.join(''));
      if (word !== '') parts.push({ query: quote(word), width: 1, word: [...word].length >= 3 });
      continue;
    }
    const n = seg.chars.length;
    if (n === 1) {
      parts.push({ query: quote(seg.chars[0]!), width: 1, word: false });
      continue;
    }
    const bigrams: string[] = [];
    for (let i = 0; i + 1 < n; i++) bigrams.push(quote(seg.chars[i]! + seg.chars[i + 1]!));
    // The chain's last bigram starts one position before the segment's last character.
    parts.push({
      query: bigrams.length === 1 ? bigrams[0]! : `(${bigrams.join(' <-> ')})`,
      width: 2,
      word: false,
    });
  }
  const last = parts.at(-1);
  if (!last) return null;
  // A word at the end may be the start of a longer one, as in the words step.
  if (last.word) last.query += ':*';
  let query = parts[0]!.query;
  for (let i = 1; i < parts.length; i++) query = `(${query} <${parts[i - 1]!.width}> ${parts[i]!.query})`;
  return query;
}
