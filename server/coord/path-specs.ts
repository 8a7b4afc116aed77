// What a reservation holds: repository-relative paths and globs. A file path (`src/a.ts`) holds that
// file; a directory (`src/auth/`: written with a trailing slash, or a path naming a directory that exists,
// which is kept with one) holds everything under it; a glob (`src/**/*.ts`, `docs/{a,b}.md`) holds what
// it matches, dot files included. Two holds overlap when some path could be held by both: path against
// path, path against glob and glob against glob, decided segment by segment (a `**` stands for any number
// of segments). Globs are minimatch's (the matcher npm itself uses, already among the hub's build
// dependencies, with its own types): it parses each segment, and a segment against a literal name is its
// match; two wildcard segments are told apart by what they must start and end with (`*.ts` and `*.md`
// never meet) and counted as overlapping otherwise, so an exclusive hold errs on the side of refusing.
import { statSync } from 'node:fs';
import { isAbsolute, posix, resolve } from 'node:path';
import { braceExpand, Minimatch, type MinimatchOptions, unescape as unescapeGlob } from 'minimatch';
import type { RepoPaths } from '../agents/paths.ts';
import { invalid } from '../errors.ts';

/** Braces already expanded (below, with a cap); extglobs, comments and negation are not reservations. */
const OPTIONS: MinimatchOptions = { dot: true, nobrace: true, noext: true, nocomment: true, nonegate: true };
/** Alternatives one spec may expand to (`{a,b}/{c,d}` is four). */
const MAX_ALTERNATIVES = 32;
export const MAX_SPEC_CHARS = 1000;

type Segment =
  | { kind: 'name'; name: string }
  | { kind: 'glob'; text: string; mm: Minimatch }
  | { kind: 'any' };

export interface PathSpec {
  /** As normalised: what the reservation shows and releases by. */
  text: string;
  /** One sequence of segments per brace alternative. */
  alternatives: Segment[][];
}

const hasMagic = (s: string) => /[*?[\]{}\\]/.test(s);

function segmentsOf(alternative: string): Segment[] {
  const out: Segment[] = [];
  // A directory (a path written with a trailing slash) holds what is under it.
  const holdsBelow = !hasMagic(alternative) && alternative.endsWith('/');
  for (const part of alternative.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '**') {
      if (out.at(-1)?.kind !== 'any') out.push({ kind: 'any' });
      continue;
    }
    const mm = new Minimatch(part, OPTIONS);
    out.push(mm.hasMagic() ? { kind: 'glob', text: part, mm } : { kind: 'name', name: unescapeGlob(part) });
  }
  if (holdsBelow && out.at(-1)?.kind !== 'any') out.push({ kind: 'any' });
  return out;
}

/** A normalised spec, compiled. `text` must come from normalizeSpec (or be a stored reservation's). */
export function compileSpec(text: string): PathSpec {
  const expanded = hasMagic(text) ? braceExpand(text).slice(0, MAX_ALTERNATIVES) : [text];
  // An alternative without wildcards (`src/{a,b}/` gives src/a/ and src/b/) is a path like any other.
  const alternatives = expanded.map(segmentsOf);
  return { text, alternatives };
}

/** The literal head of a wildcard segment and its literal tail: what every name it matches starts and ends with. */
function ends(text: string): { head: string; tail: string } {
  const first = text.search(/[*?[\\]/);
  const last = Math.max(text.lastIndexOf('*'), text.lastIndexOf('?'), text.lastIndexOf(']'));
  return {
    head: first === -1 ? text : text.slice(0, first),
    tail: text.includes('\\') || last === -1 ? '' : text.slice(last + 1),
  };
}

function segmentsMeet(a: Segment, b: Segment): boolean {
  if (a.kind === 'name' && b.kind === 'name') return a.name === b.name;
  if (a.kind === 'name' && b.kind === 'glob') return b.mm.match(a.name);
  if (a.kind === 'glob' && b.kind === 'name') return a.mm.match(b.name);
  if (a.kind !== 'glob' || b.kind !== 'glob') return true;
  const x = ends(a.text);
  const y = ends(b.text);
  return (
    (x.head.startsWith(y.head) || y.head.startsWith(x.head)) &&
    (x.tail.endsWith(y.tail) || y.tail.endsWith(x.tail))
  );
}

/** Whether some path is matched by both sequences of segments. */
function sequencesMeet(a: readonly Segment[], b: readonly Segment[]): boolean {
  const memo = new Map<number, boolean>();
  const width = b.length + 1;
  const meet = (i: number, j: number): boolean => {
    const key = i * width + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let out: boolean;
    const x = a[i];
    const y = b[j];
    if (x === undefined && y === undefined) out = true;
    else if (x?.kind === 'any')
      // `**` matches nothing more, or takes one more segment of the other side.
      out = meet(i + 1, j) || (y !== undefined && meet(i, j + 1));
    else if (y?.kind === 'any') out = meet(i, j + 1) || (x !== undefined && meet(i + 1, j));
    else out = x !== undefined && y !== undefined && segmentsMeet(x, y) && meet(i + 1, j + 1);
    memo.set(key, out);
    return out;
  };
  return meet(0, 0);
}

export function specsOverlap(a: PathSpec, b: PathSpec): boolean {
  return a.alternatives.some((x) => b.alternatives.some((y) => sequencesMeet(x, y)));
}

/** Whether a spec holds one repository-relative file path (an edit's). */
export function specHolds(spec: PathSpec, path: string): boolean {
  const segments: Segment[] = path
    .split('/')
    .filter((p) => p !== '' && p !== '.')
    .map((name) => ({ kind: 'name', name }));
  return spec.alternatives.some((alt) => sequencesMeet(segments, alt));
}

/** The segments of an alternative before its first wildcard: where its files are, for the real-path check. */
function literalBase(alternative: string): string {
  const parts: string[] = [];
  for (const part of alternative.split('/')) {
    if (hasMagic(part)) break;
    parts.push(part);
  }
  return parts.join('/');
}

/**
 * A path or glob as an agent gave it → its normalised, repository-relative form. Relative ones are
 * relative to the repository's root (not the agent's working directory); an absolute one must lie
 * inside the repository. Throws `validation` for an empty one, a negation, `..` out of the repository,
 * or a place whose real path is outside it (a symlink pointing out included).
 */
export function normalizeSpec(raw: string, paths: RepoPaths): string {
  let s = raw.trim();
  if (s === '') throw invalid('a path is empty: name a repository-relative path or glob such as src/auth/**');
  if (s.length > MAX_SPEC_CHARS) throw invalid(`a path is longer than ${MAX_SPEC_CHARS} characters`);
  if (s.includes('\0')) throw invalid('a path contains a NUL character');
  if (s.startsWith('!'))
    throw invalid(`"${s}" is a negated glob: name what you will edit, not what you will not`);
  if (isAbsolute(s)) {
    const stored = paths.stored(resolve(s));
    if (stored.startsWith('/'))
      throw invalid(
        'an absolute path outside the repository: reservations hold files inside it (name them relative to its root)',
      );
    s = stored;
  }
  const directory = s.endsWith('/');
  s = posix
    .normalize(s)
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
  if (s === '.' || s === '')
    throw invalid(`"${raw.trim()}" names the repository itself: name paths inside it (or ** for all of it)`);
  const alternatives = hasMagic(s) ? braceExpand(s) : [s];
  if (alternatives.length > MAX_ALTERNATIVES)
    throw invalid(`"${s}" expands to more than ${MAX_ALTERNATIVES} alternatives: name fewer`);
  for (const alt of alternatives) {
    if (alt.split('/').includes('..'))
      throw invalid(`"${raw.trim()}" reaches outside the repository (..): reservations hold files inside it`);
    const base = literalBase(alt);
    // The repository's own root is inside (a glob such as ** or *.md starts there).
    if (base !== '' && paths.relative(`${paths.root}/${base}`) === null)
      throw invalid(
        `"${raw.trim()}" is outside the repository once links are followed (${base} leads out of it): reservations hold files inside it`,
      );
  }
  // A glob written with a trailing slash names directories: it holds what is under them.
  if (hasMagic(s)) return directory && !s.endsWith('**') ? `${s}/**` : s;
  // A directory holds everything under it: one written as such, or one that exists.
  return directory || isDirectory(`${paths.root}/${s}`) ? `${s}/` : s;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
