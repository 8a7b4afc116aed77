// TypeScript 4.7–5.x syntax the pinned tree-sitter grammar does not know yet, rewritten into forms it
// does, byte for byte in place: every rewrite keeps each character's offset, line and column, so the
// tree of the rewritten text is a tree of the original file (names, lines and call sites all stay
// exact). Only a file whose first parse failed is rewritten, then parsed once more.
//
// Why rewrite rather than change grammars: tree-sitter-typescript 0.23.2 (what @vscode/tree-sitter-wasm
// 0.3.1 builds, and the newest release on the registry) has no variance annotations (`in`/`out`),
// `export type *`, `import("m").T` types, `using` declarations, `accessor` fields, attributes on
// `export … from`, type arguments on tagged templates, or `keyof readonly T[]`; every other registry
// build of it (tree-sitter-wasms, @repomix/…, @sourcegraph/…) is the same release or older. The
// upstream pull requests for these are still open, so there is no maintained build to move to.

export interface DialectRewrite {
  /** The rewritten text: same length, same line breaks, as the original. */
  text: string;
  /**
   * Identifiers the rewrite minted, by their start offset: `import("node:fs")` in a type becomes the
   * identifier `import__node_fs__`, which stands for that module's namespace; an anonymous
   * `export default function (…): T;` signature gets the name `_`, which stands for `default`.
   */
  importTypes: Map<string, string>;
  defaultNames: Set<number>;
  /** Which rewrites applied, for the log and the tests. */
  applied: string[];
}

/**
 * Finds, backwards from an offset, the last character that is code: blanks, line breaks, block
 * comments and line comments are skipped. Every `/*` and `//` of the file is listed once, so a step
 * over a comment is a binary search, and a walk gives up after WALK_LIMIT characters: no file, however
 * shaped, makes the rules that use it grow with the square of its length (a regular expression that
 * tried blanks and comments from every `,` scanned each unterminated comment to the end of the file).
 */
class BackScanner {
  private static readonly WALK_LIMIT = 20_000;
  private static readonly LINE_LIMIT = 2000;
  // Listed on first use: most files need none of the rules that look back.
  private listed?: { blockOpens: number[]; lineOpens: number[] };

  constructor(private readonly text: string) {}

  private get blockOpens(): number[] {
    return this.lists().blockOpens;
  }

  private get lineOpens(): number[] {
    return this.lists().lineOpens;
  }

  private lists(): { blockOpens: number[]; lineOpens: number[] } {
    if (!this.listed)
      this.listed = { blockOpens: offsetsOf(this.text, '/*'), lineOpens: offsetsOf(this.text, '//') };
    return this.listed;
  }

  /** The offset of the last code character before `at`, or -1 (the file's start, or too far). */
  previousToken(at: number): number {
    const { text } = this;
    const floor = Math.max(0, at - BackScanner.WALK_LIMIT);
    let i = at - 1;
    while (i >= floor) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) {
        i--;
        continue;
      }
      if (c === 47 /* / */ && text[i - 1] === '*') {
        const open = lastBefore(this.blockOpens, i - 1);
        if (open < floor) return -1;
        i = open - 1;
        continue;
      }
      const comment = this.lineCommentBefore(i);
      if (comment === -1) return i;
      i = comment - 1;
    }
    return -1;
  }

  /**
   * Where the `//` comment that `at` is in starts, or -1: the nearest `//` on the same line, found
   * outside quotes by reading the line from its start. Lines and comments longer than LINE_LIMIT are
   * taken as code (minified files, which carry no line comments).
   */
  private lineCommentBefore(at: number): number {
    const { text } = this;
    const slash = lastBefore(this.lineOpens, at + 1);
    if (slash === -1 || at - slash > BackScanner.LINE_LIMIT) return -1;
    const from = Math.max(0, slash - BackScanner.LINE_LIMIT);
    const breakAt = text.slice(from, at).lastIndexOf('\n');
    if (breakAt !== -1 && from + breakAt > slash) return -1;
    return this.lineComment(from + breakAt + 1, at);
  }

  /** Where a `//` comment starts between `from` and `to` on one line (outside quotes), or -1. */
  private lineComment(from: number, to: number): number {
    const { text } = this;
    let quote = '';
    for (let i = from; i < to; i++) {
      const c = text[i]!;
      if (quote) {
        if (c === '\\') i++;
        else if (c === quote) quote = '';
      } else if (c === "'" || c === '"' || c === '`') quote = c;
      else if (c === '/' && text[i + 1] === '/') return i;
      else if (c === '/' && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        if (end === -1 || end >= to) return -1;
        i = end + 1;
      }
    }
    return -1;
  }
}

/** Every offset of `needle` in `text`, in order (indexOf: a match object each would cost more than the scan). */
function offsetsOf(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** The greatest value in the sorted `list` below `limit`, or -1. */
function lastBefore(list: number[], limit: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? list[lo - 1]! : -1;
}

/** Same-length replacements, applied in one pass at the end (splitting a big file into characters costs more). */
class Edits {
  private readonly list: { at: number; s: string }[] = [];
  constructor(private readonly text: string) {}

  /** Blanks `[from, to)` with spaces, keeping line breaks so lines and columns do not move. */
  blank(from: number, to: number): void {
    this.list.push({ at: from, s: this.text.slice(from, to).replace(/[^\r\n]/g, ' ') });
  }

  put(at: number, s: string): void {
    this.list.push({ at, s });
  }

  apply(): string {
    const sorted = [...this.list].sort((a, b) => a.at - b.at);
    let out = '';
    let pos = 0;
    for (const e of sorted) {
      // Two edits overlap (rare): apply them in the order made, so the later one wins.
      if (e.at < pos) return this.applySlow();
      out += this.text.slice(pos, e.at) + e.s;
      pos = e.at + e.s.length;
    }
    return out + this.text.slice(pos);
  }

  private applySlow(): string {
    const units = this.text.split('');
    for (const e of this.list) for (let i = 0; i < e.s.length; i++) units[e.at + i] = e.s[i]!;
    return units.join('');
  }
}

/**
 * The end (exclusive) of the angle-bracket list opening at `open`, or -1: `=>` is an arrow, not a
 * closer; strings, templates and comments are not looked into (type arguments rarely hold them).
 */
function closingAngle(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length && i < open + 1000; i++) {
    const c = text[i];
    if (c === '<') depth++;
    else if (c === '>' && text[i - 1] !== '=') {
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === ';' || c === '`') return -1;
  }
  return -1;
}

/** The offset of the `<` that the `>` at `close` ends, or -1 (the mirror of closingAngle). */
function openingAngle(text: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0 && i > close - 1000; i--) {
    const c = text[i];
    if (c === '>' && text[i - 1] !== '=') depth++;
    else if (c === '<') {
      depth--;
      if (depth === 0) return i;
    } else if (c === '`' && i !== close + 1) return -1;
  }
  return -1;
}

/** Rewrites the modern syntax found in `text` (TypeScript or JavaScript; `dts` for declaration files). */
export function rewriteModernSyntax(
  text: string,
  opts: { dts?: boolean; ts?: boolean } = {},
): DialectRewrite {
  const edits = new Edits(text);
  const back = new BackScanner(text);
  const applied = new Set<string>();
  const importTypes = new Map<string, string>();
  const defaultNames = new Set<number>();

  // Variance annotations: `<in out T`, `, out A = never`, `<const in T` (also after a comment).
  const variance = /\b(in\s+out|in|out)(\s+)(?=[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))/g;
  for (const m of text.matchAll(variance)) {
    let before = back.previousToken(m.index);
    if (before >= 4 && /\bconst$/.test(text.slice(before - 5, before + 1)))
      before = back.previousToken(before - 4);
    if (before === -1 || (text[before] !== '<' && text[before] !== ',')) continue;
    edits.blank(m.index, m.index + m[1]!.length);
    applied.add('variance annotation');
  }

  // `export type * from` / `export type * as ns from`: a type-only re-export of everything.
  const typeStar = /\bexport(\s+)type(?=\s*\*)/g;
  for (const m of text.matchAll(typeStar)) {
    const at = m.index + 6 + m[1]!.length;
    edits.blank(at, at + 4);
    applied.add('export type *');
  }

  // Import attributes on `export … from '…' with { … }` (the grammar takes them on imports only).
  const exportAttrs = /\bfrom\s*(['"])[^'"\n]*\1(\s*)((?:with|assert)\s*\{[^}]{0,2000}\})/g;
  for (const m of text.matchAll(exportAttrs)) {
    const at = m.index + m[0].length - m[3]!.length;
    edits.blank(at, at + m[3]!.length);
    applied.add('export attributes');
  }

  // Import phases: `import defer * as ns from "m"` (TypeScript 5.9) and `import source x from "m"`
  // (source phase imports): the phase is blanked, leaving the import they are (the edge is the same).
  const importPhase = /\bimport(\s+)(?:defer(?=\s*\*)|source(?=\s+(?!from\b)[A-Za-z_$][\w$]*\s+from\b))/g;
  for (const m of text.matchAll(importPhase)) {
    const at = m.index + 6 + m[1]!.length;
    edits.blank(at, at + (text.startsWith('defer', at) ? 5 : 6));
    applied.add('import phase');
  }

  // `import("m").T` as a type: an identifier of the same length that stands for the module.
  const importType = /\bimport([ \t]*\([ \t]*)(['"])([^'"\n]+)\2([ \t]*\))/g;
  for (const m of text.matchAll(importType)) {
    const before = text.slice(Math.max(0, m.index - 40), m.index).trimEnd();
    if (/\btypeof$/.test(before)) continue;
    const prev = before[before.length - 1];
    const after = text[m.index + m[0].length];
    // Only in a type: after an annotation colon, a type operator or a type list, and used as a
    // namespace (`.T`) or a whole type; `await import("m")` and `import("m").then(…)` stay calls.
    const typeContext =
      (prev === ':' ||
        prev === '<' ||
        prev === '>' ||
        prev === '|' ||
        prev === '&' ||
        prev === ',' ||
        prev === '=' ||
        prev === '(' ||
        prev === '[' ||
        /\b(?:extends|keyof|is)$/.test(before)) &&
      !/\b(?:await|return|yield)$/.test(before);
    // …and followed by what follows a type: a member, an index, type arguments, a list's end or a
    // union; `{ fs: import("node:fs") }` and `import("m").then(…)` are values.
    const rest = text.slice(m.index + m[0].length, m.index + m[0].length + 12);
    const typeAfter =
      after === '.'
        ? !/^\.\s*(?:then|catch|finally)\b/.test(rest)
        : after !== undefined && ('[<>|&'.includes(after) || (after === ';' && prev === '='));
    if (!typeContext || !typeAfter) continue;
    // After `=>` only as a member (`() => import("m").T`); `() => import("./page")` is a lazy import.
    if (prev === '>' && (after !== '.' || !before.endsWith('=>'))) continue;
    if (prev === '=' && !/\btype\s+[\w$]+(?:<[^=]*>)?\s*=$/.test(before)) continue;
    // A declaration file holds no values: `(import("m").A | import("m").B)[]` is a type too.
    if (!opts.dts && (prev === '(' || prev === ',') && !looksLikeTypeList(text, m.index)) continue;
    const ident = `import${m[0].slice(6).replace(/[^\w$]/g, '_')}`;
    edits.put(m.index, ident);
    importTypes.set(ident, m[3]!);
    applied.add('import type');
  }

  // `keyof readonly T[]` in a mapped type.
  const keyofReadonly = /\bkeyof(\s+)readonly\b/g;
  for (const m of text.matchAll(keyofReadonly)) {
    const at = m.index + 5 + m[1]!.length;
    edits.blank(at, at + 8);
    applied.add('keyof readonly');
  }

  // `using x = …` / `await using x = …` (also in `for (… of …)`): declared like `const`.
  const usingDecl = /\busing[ \t]+(?=[A-Za-z_$][\w$]*[ \t]*(?:=|of\b|:))/g;
  for (const m of text.matchAll(usingDecl)) {
    // At the start of a statement or of a `for (`, after an optional `await`.
    const head = /(?:^|[;{}(\n])[ \t]*((?:await[ \t]+)?)$/.exec(
      text.slice(Math.max(0, m.index - 40), m.index),
    );
    if (!head) continue;
    edits.blank(m.index - head[1]!.length, m.index);
    edits.put(m.index, 'const');
    applied.add('using declaration');
  }

  // `accessor x = …` class fields (decorator auto-accessors): a plain field.
  const accessor = /(^|[;{}\s)])accessor([ \t]+)(?=[#A-Za-z_$[])/g;
  for (const m of text.matchAll(accessor)) {
    const at = m.index + m[1]!.length;
    // `accessor` is a field name in `accessor = 1` or `accessor(): T`, never followed by a name.
    edits.blank(at, at + 8);
    applied.add('accessor field');
  }

  // Type arguments the grammar cannot read: on a tagged template (`sql<Row>\`…\``) and a list that
  // opens with a generic function type (`f<<T>(x: T) => T>()`, lexed as a shift). Dropped: a call
  // graph needs the call, not its type arguments.
  // Tagged templates: from each `>` that touches a backtick, back to its `<`.
  const tagged = />`/g;
  for (const m of text.matchAll(tagged)) {
    const open = openingAngle(text, m.index);
    if (open > 0 && /[\w$)\]]/.test(text[open - 1]!)) {
      edits.blank(open, m.index + 1);
      applied.add('tagged template type arguments');
    }
  }
  const genericArg = /[\w$)\]](<)<\s*(?:[A-Za-z_$][\w$]*\s*(?:extends\b|[,>])|\()/g;
  let skipTo = 0;
  for (const m of text.matchAll(genericArg)) {
    const open = m.index + 1;
    if (open < skipTo) continue;
    const close = closingAngle(text, open);
    if (close !== -1 && text[close] === '(') {
      edits.blank(open, close);
      applied.add('generic function type argument');
      skipTo = close;
    }
  }

  // Members of a type literal one a line, without `;`, that open with an operator: an overloaded call
  // signature (`  <A>(x: A): B<A>`) after a member that ends in `>`, read as a comparison going on, and
  // a property named `in`. A `;` in the indentation ends the member before (TypeScript only: in TSX
  // and JavaScript a line that opens with `<` is JSX).
  if (opts.ts) {
    // Found from the line that opens with the operator, then back over blank and comment lines to
    // where the member before ends; the `;` goes in the last column of the indentation.
    const memberLine =
      /^([ \t]+)(?=<\s*(?:const\s+)?[A-Za-z_$][\w$]*\s*(?:,|extends\b|>\s*\(|=)|in\s*\??:)/gm;
    for (const m of text.matchAll(memberLine)) {
      const end = back.previousToken(m.index);
      if (end === -1 || !/[\w$>)\]}]/.test(text[end]!)) continue;
      if (text[end] === '>' && text[end - 1] === '=') continue;
      if (!text.slice(end, m.index).includes('\n')) continue;
      edits.put(m.index + m[1]!.length - 1, ';');
      applied.add('member on its own line');
    }
  }

  // A destructured first parameter the grammar cannot read in a function type: over several lines
  // (`({\n  index\n}: {…}) => …`), or optional (`({ behavior }?: Options) => void`, as tsc writes
  // declaration files). The pattern becomes a plain name; the names in it are not symbols.
  const destructured = /(\(\s*)\{([\w$\s,:]*)\}(?=\s*(\??)\s*:)/g;
  for (const m of text.matchAll(destructured)) {
    const optional = m[3] === '?';
    if (!optional && !m[2]!.includes('\n')) continue;
    const at = m.index + m[1]!.length;
    edits.blank(at, at + m[2]!.length + 2);
    edits.put(at, '_');
    applied.add(optional ? 'optional destructured parameter' : 'multi-line destructured parameter type');
  }

  // `global { … }` inside `declare module "m" { … }` (a global augmentation from a module, as
  // @types/node writes it): without `declare` the grammar reads `global` as an expression. The keyword
  // is blanked, leaving a block, which is what a top-level `declare global { … }` gives too.
  if (opts.ts) {
    for (const m of text.matchAll(/\bglobal(?=\s*\{)/g)) {
      const before = back.previousToken(m.index);
      if (before === -1 || !'{;}'.includes(text[before]!)) continue;
      edits.blank(m.index, m.index + 6);
      applied.add('global augmentation in a module');
    }
  }

  // A variable named `as` (`let as = …`): the grammar takes `as` for the cast. Renamed `a$` where it
  // is a value: declared, or followed by what follows a value, never by a type.
  if (/\b(?:let|const|var)\s+as\b/.test(text)) {
    const asName = /(?<![\w$.])as\b(?=[.[]|\s*[,;)\]=}]|\s*$)|(?<=\b(?:let|const|var)\s+)as\b/g;
    for (const m of text.matchAll(asName)) {
      edits.put(m.index, 'a$');
      applied.add('variable named as');
    }
  }

  // Escapes in a template literal type (\`Missing \\\`Self\\\`\`, \`${L}$\\{${R}\\}\`, \`${A}\\n${B}\`): the
  // grammar takes none. Each escape is blanked with its backslash, read in pairs from the file's start
  // so `\\\\` is one escape. In TypeScript every escape goes (outside a template they sit in strings,
  // regular expressions and comments, where two blanks read as well); in TSX and JavaScript only an
  // escaped backtick, as JSX text keeps its backslashes.
  // In a tagged template (String.raw`{\\rtf1\\uc1}`) any escape may be malformed, which the grammar
  // refuses in every language: a `\\u` or `\\x` without its hex digits goes too.
  const escapes = opts.ts
    ? /\\[\x20-\x7e]/g
    : /(?<!\\)((?:\\\\)*)\\(?:`|u(?![0-9a-fA-F]{4}|\{[0-9a-fA-F]+\})|x(?![0-9a-fA-F]{2}))/g;
  for (const m of text.matchAll(escapes)) {
    const at = m.index + (m[1]?.length ?? 0);
    edits.blank(at, at + 2);
    applied.add(opts.ts ? 'escapes blanked' : 'escaped backtick or malformed escape');
  }

  // `export import X = require("m")`: an import-equals re-exported (the grammar takes it unexported).
  if (opts.ts) {
    const exportImport = /\bexport(?=\s+import\s+[A-Za-z_$][\w$]*\s*=\s*require\s*\()/g;
    for (const m of text.matchAll(exportImport)) {
      edits.blank(m.index, m.index + 6);
      applied.add('export import = require');
    }
  }

  // A member named `abstract` (`abstract?: boolean;`, as @oxc-project/types writes an AST's fields):
  // the grammar takes the modifier. Renamed `abstrac$` where a colon follows (a property: no graph node
  // carries its name).
  if (opts.ts) {
    for (const m of text.matchAll(/\babstract(?=\s*\??\s*:)/g)) {
      const before = back.previousToken(m.index);
      if (before === -1 || !'{;,'.includes(text[before]!)) continue;
      edits.put(m.index + 7, '$');
      applied.add('member named abstract');
    }
  }

  // `using` as a value (`{ u: using.bind(null, !1) }`, the helper bundlers emit for `using`
  // declarations): the grammar takes it for the declaration's keyword. Renamed `usin$` after an
  // operator or an opening bracket, where it can only be a value; `function using(…)` and a method
  // named `using` keep their name.
  const usingValue = /([=:(,[!?&|+\-*%<>]|\breturn)(\s*)using\b(?=\s*[.([)\]},;?:])/g;
  for (const m of text.matchAll(usingValue)) {
    edits.put(m.index + m[1]!.length + m[2]!.length + 4, '$');
    applied.add('variable named using');
  }

  // `c?.5:d`, a conditional whose branch is a number with no leading zero: lexed as `?.`. The dot
  // becomes a blank (a number's value is not in the graph).
  for (const m of text.matchAll(/\?\.(?=\d)/g)) {
    edits.put(m.index + 1, ' ');
    applied.add('conditional before a fraction');
  }

  // NUL characters (in strings of tests that feed them to a parser): the grammar stops at one.
  for (const m of text.matchAll(/\0/g)) {
    edits.put(m.index, ' ');
    applied.add('NUL character');
  }

  // `export default function (…): T;`, an anonymous signature (declaration files): `export function _(`.
  if (opts.dts) {
    const anonDefault = /\bexport([ \t]+)default([ \t]+)function([ \t]*)\(/g;
    for (const m of text.matchAll(anonDefault)) {
      const open = m.index + m[0].length - 1;
      const start = m.index + 6;
      edits.blank(start, open);
      edits.put(open - 10, 'function _');
      defaultNames.add(open - 1);
      applied.add('anonymous default signature');
    }
  }

  return { text: edits.apply(), importTypes, defaultNames, applied: [...applied] };
}

/** Whether the `(` or `,` before `at` opens a type argument or parameter-type list rather than a call. */
function looksLikeTypeList(text: string, at: number): boolean {
  // Walk back to the unmatched opener; a `<` means type arguments, a `(` preceded by `:` or `=>`
  // context is a function type's parameters (rare): only `<` is taken.
  let depth = 0;
  for (let i = at - 1; i >= 0 && i > at - 20000; i--) {
    const c = text[i];
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '(' || c === '[' || c === '{') {
      if (depth === 0) return false;
      depth--;
    } else if (c === '>' && text[i - 1] !== '=') depth++;
    else if (c === '<') {
      if (depth === 0) return true;
      depth--;
    } else if (c === ';' && depth === 0) return false;
  }
  return false;
}
