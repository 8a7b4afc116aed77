// One file's hunks, unified or side by side, syntax highlighted. The hub sends hunks already parsed
// (git's lines with their ' ', '+', '-' marks), so nothing here parses a diff; Prism (through
// prism-react-renderer's bundle of the common languages) tokenises each side of a hunk as one text, so
// a comment or string that spans lines is coloured as the file's own highlighter would.
import { normalizeTokens, Prism } from 'prism-react-renderer';
import type { ReactNode } from 'react';
import type { ChangeFile, Hunk } from './api.ts';

const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: 'tsx',
  tsx: 'tsx',
  mts: 'tsx',
  cts: 'tsx',
  js: 'jsx',
  jsx: 'jsx',
  mjs: 'jsx',
  cjs: 'jsx',
  py: 'python',
  go: 'go',
  rs: 'rust',
  css: 'css',
  json: 'json',
  yml: 'yaml',
  yaml: 'yaml',
  md: 'markdown',
  sql: 'sql',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  cc: 'cpp',
  hpp: 'cpp',
  kt: 'kotlin',
  swift: 'swift',
  html: 'markup',
  xml: 'markup',
  svg: 'markup',
  graphql: 'graphql',
};

export function languageOf(path: string): string | undefined {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  const lang = LANGUAGE_BY_EXTENSION[ext];
  return lang && Prism.languages[lang] ? lang : undefined;
}

type Line = { types: string[]; content: string }[];

function tokenise(code: string[], language: string | undefined): Line[] {
  if (!language) return code.map((content) => [{ types: ['plain'], content }]);
  const grammar = Prism.languages[language];
  if (!grammar) return code.map((content) => [{ types: ['plain'], content }]);
  return normalizeTokens(Prism.tokenize(code.join('\n'), grammar));
}

interface Row {
  mark: ' ' | '+' | '-' | '\\';
  old: number | null;
  new: number | null;
  tokens: Line;
}

/** The hunk's lines with their numbers on each side and their tokens. */
export function rowsOf(hunk: Hunk, language: string | undefined): Row[] {
  const oldCode: string[] = [];
  const newCode: string[] = [];
  for (const l of hunk.lines) {
    if (l[0] === ' ' || l[0] === '-') oldCode.push(l.slice(1));
    if (l[0] === ' ' || l[0] === '+') newCode.push(l.slice(1));
  }
  const oldTokens = tokenise(oldCode, language);
  const newTokens = tokenise(newCode, language);
  let o = 0;
  let n = 0;
  const rows: Row[] = [];
  for (const l of hunk.lines) {
    const mark = (l[0] ?? ' ') as Row['mark'];
    if (mark === '\\') {
      rows.push({ mark, old: null, new: null, tokens: [{ types: ['comment'], content: l.slice(1).trim() }] });
    } else if (mark === '-') {
      rows.push({ mark, old: hunk.old_start + o, new: null, tokens: oldTokens[o] ?? [] });
      o++;
    } else if (mark === '+') {
      rows.push({ mark, old: null, new: hunk.new_start + n, tokens: newTokens[n] ?? [] });
      n++;
    } else {
      rows.push({ mark: ' ', old: hunk.old_start + o, new: hunk.new_start + n, tokens: newTokens[n] ?? [] });
      o++;
      n++;
    }
  }
  return rows;
}

function Code({ tokens }: { tokens: Line }): ReactNode {
  return tokens.map((t, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: a line's tokens have only their position
    <span key={i} className={t.types.map((type) => `tok-${type}`).join(' ')}>
      {t.content}
    </span>
  ));
}

const MARK_CLASS = { '+': 'diff-add', '-': 'diff-del', ' ': 'diff-ctx', '\\': 'diff-note' } as const;

function Unified({ rows }: { rows: Row[] }) {
  return rows.map((r, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: rows of one hunk have only their position
    <tr key={i} className={MARK_CLASS[r.mark]}>
      <td className="diff-num">{r.old ?? ''}</td>
      <td className="diff-num">{r.new ?? ''}</td>
      <td className="diff-mark" aria-hidden="true">
        {r.mark === '\\' ? '' : r.mark}
      </td>
      <td className="diff-code">
        <Code tokens={r.tokens} />
      </td>
    </tr>
  ));
}

/** Side by side: each run of removed lines faces the run of added lines that replaced it. */
function Split({ rows }: { rows: Row[] }) {
  const pairs: [Row | null, Row | null][] = [];
  for (let i = 0; i < rows.length; ) {
    const r = rows[i]!;
    if (r.mark === ' ' || r.mark === '\\') {
      pairs.push([r, r]);
      i++;
      continue;
    }
    const dels: Row[] = [];
    const adds: Row[] = [];
    while (rows[i]?.mark === '-') dels.push(rows[i++]!);
    while (rows[i]?.mark === '+') adds.push(rows[i++]!);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++)
      pairs.push([dels[k] ?? null, adds[k] ?? null]);
  }
  const side = (r: Row | null, which: 'old' | 'new') =>
    r === null ? (
      <>
        <td className="diff-num diff-empty" />
        <td className="diff-code diff-empty" />
      </>
    ) : (
      <>
        <td className={`diff-num ${MARK_CLASS[r.mark]}`}>{r[which] ?? ''}</td>
        <td className={`diff-code ${MARK_CLASS[r.mark]}`}>
          <Code tokens={r.tokens} />
        </td>
      </>
    );
  return pairs.map(([a, b], i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: rows of one hunk have only their position
    <tr key={i}>
      {side(a, 'old')}
      {side(b, 'new')}
    </tr>
  ));
}

export function FileDiff({ file, layout }: { file: ChangeFile; layout: 'unified' | 'split' }) {
  const language = languageOf(file.path);
  const title = file.old_path && file.old_path !== file.path ? `${file.old_path} → ${file.path}` : file.path;
  return (
    <section className="diff-file" aria-label={`Diff of ${file.path}`}>
      <header className="diff-file-header">
        <code>{title}</code>
        <span className={`badge diff-status-${file.status}`}>{file.status}</span>
        <span className="muted">
          +{file.additions} −{file.deletions}
        </span>
      </header>
      {file.binary ? <p className="muted">Binary file</p> : null}
      {(file.hunks ?? []).length === 0 && !file.binary ? (
        <p className="muted">{file.status === 'renamed' ? 'Renamed without changes' : 'No lines to show'}</p>
      ) : null}
      {(file.hunks ?? []).map((h) => (
        <table key={`${h.old_start}:${h.new_start}`} className={`diff diff-${layout}`}>
          <caption className="diff-hunk">
            @@ −{h.old_start},{h.old_lines} +{h.new_start},{h.new_lines} @@ {h.section}
          </caption>
          <tbody>
            {layout === 'unified' ? (
              <Unified rows={rowsOf(h, language)} />
            ) : (
              <Split rows={rowsOf(h, language)} />
            )}
          </tbody>
        </table>
      ))}
      {file.hunks_cut ? <p className="muted">Some hunks are not shown.</p> : null}
    </section>
  );
}
