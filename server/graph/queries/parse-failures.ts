// Files that did not parse cleanly, as the extractors record them in graph_files.error
// (`syntax error at line L, column C: unexpected "tok"` / `…: missing ";"`): split into fields for
// cos_graph_stats, cos_graph_doctor and `cos doctor`.

export interface ParseFailure {
  path: string;
  language: string;
  /** Where the first error is (1-based), when the extractor knew it. */
  line: number | null;
  column: number | null;
  /** `unexpected "tok"`, `missing ";"`, or the extractor's own words. */
  kind: string;
}

const SYNTAX = /^syntax error at line (\d+), column (\d+)(?:: (.+))?$/s;

export function parseFailure(row: { path: string; language: string; error: string }): ParseFailure {
  const m = SYNTAX.exec(row.error);
  if (!m) return { path: row.path, language: row.language, line: null, column: null, kind: row.error };
  return {
    path: row.path,
    language: row.language,
    line: Number(m[1]),
    column: Number(m[2]),
    kind: m[3] ?? 'syntax error',
  };
}

/** `path:line:column kind`, the way an editor's problem list reads. */
export function describeFailure(f: ParseFailure): string {
  return f.line === null ? `${f.path}: ${f.kind}` : `${f.path}:${f.line}:${f.column} ${f.kind}`;
}
