// Word positions in source lines, for plans that must name a file, line and column to edit. The graph
// records where an edge was found (a call expression's start); the edit is where the name itself is.
const IDENT = /[\p{L}\p{N}_$]/u;

const isIdent = (c: string | undefined) => c !== undefined && IDENT.test(c);

/** 1-based columns where `word` stands alone (not inside a longer identifier). */
export function wordColumns(line: string, word: string): number[] {
  const out: number[] = [];
  if (!word) return out;
  for (let i = line.indexOf(word); i >= 0; i = line.indexOf(word, i + 1)) {
    if (!isIdent(line[i - 1]) && !isIdent(line[i + word.length])) out.push(i + 1);
  }
  return out;
}

/** The occurrence of `word` at or after `col` (1-based), else the first one; undefined when absent. */
export function wordColumnNear(line: string, word: string, col: number | null): number | undefined {
  const cols = wordColumns(line, word);
  if (cols.length === 0) return undefined;
  if (col === null) return cols[0];
  return cols.find((c) => c >= col) ?? cols[0];
}

/** Columns of `word` inside string literals on this line ('…', "…", `…`). */
export function wordInStrings(line: string, word: string): number[] {
  const out: number[] = [];
  const re = /(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const body = m[2] ?? '';
    for (const c of wordColumns(body, word)) out.push(m.index + 1 + c);
  }
  return out;
}

/** Columns of `word` inside inline code spans of a Markdown line. */
export function wordInCodeSpans(line: string, word: string): number[] {
  const out: number[] = [];
  const re = /`([^`]+)`/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    for (const c of wordColumns(m[1] ?? '', word)) out.push(m.index + 1 + c);
  }
  return out;
}

const TEST_FILE =
  /(^|\/)(tests?|__tests__|spec)\/|[._-](test|spec)\.[a-z]+$|(^|\/)test_[^/]+$|_test\.(go|py)$/;

export const isTestPath = (path: string) => TEST_FILE.test(path);
