// What the caller means: every graph tool that takes a node takes a uid, a repo path or a name. Order:
// the exact uid (`direct`), a path turned into a file/doc/folder uid (`path_prefix`), then labels and
// qualified names: the one repository symbol with exactly that name (`exact_unique`), else FTS5
// (`fuzzy_fts5`). A name several symbols share is never guessed: the caller gets the ranked candidates.
import { isAbsolute, relative } from 'node:path';
import type { ResolvedFrom } from '../../../shared/envelope/index.ts';
import { splitWords } from '../uid.ts';
import type { GraphReader, NodeRow } from './store.ts';

export type { ResolvedFrom };

export type MatchKind = 'uid' | 'path' | 'exact_label' | 'exact_qualified_name' | 'prefix' | 'fuzzy';

export interface Candidate {
  node: NodeRow;
  score: number;
  match: MatchKind;
  in_degree: number;
}

export type Resolution =
  | { status: 'found'; node: NodeRow; from: ResolvedFrom }
  | {
      status: 'ambiguous';
      from: ResolvedFrom;
      /** The best AMBIGUOUS_LISTED of them. */
      candidates: Candidate[];
      /** How many matched equally well. */
      total: number;
    }
  | { status: 'none'; candidates: Candidate[] };

/** FTS5 query text: each word of the input as a quoted prefix term, all required. */
export function ftsQuery(text: string): string | undefined {
  const words = splitWords(text)
    .split(' ')
    .filter((w) => w.length > 0);
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w.replaceAll('"', '""')}"*`).join(' ');
}

function matchOf(node: NodeRow, q: string, qLower: string): { match: MatchKind; boost: number } {
  if (node.label === q) return { match: 'exact_label', boost: 100 };
  if (node.qualified_name === q) return { match: 'exact_qualified_name', boost: 95 };
  const label = node.label.toLowerCase();
  if (label === qLower || node.qualified_name.toLowerCase() === qLower)
    return { match: 'exact_label', boost: 80 };
  if (node.qualified_name.toLowerCase().endsWith(`.${qLower}`)) return { match: 'prefix', boost: 50 };
  if (label.startsWith(qLower)) return { match: 'prefix', boost: 40 };
  return { match: 'fuzzy', boost: 0 };
}

export interface SearchOptions {
  kinds?: ReadonlySet<string>;
  /** How many ranked candidates to return. */
  limit: number;
  /** Skip this many (paging). */
  offset?: number;
}

/**
 * Labels and qualified names ranked by how well they match, then by how much of the repo points at
 * them (in-degree), in-repo symbols ahead of external stubs. Returns the page and the number ranked.
 */
export function searchNodes(
  r: GraphReader,
  query: string,
  options: SearchOptions,
): { candidates: Candidate[]; total: number } {
  const q = query.trim();
  const qLower = q.toLowerCase();
  const offset = options.offset ?? 0;
  const seen = new Map<number, { node: NodeRow; rank: number }>();
  // Exact labels first, through the label index: FTS drops symbols such as `$` and caps its result.
  for (const n of r.s.byLabel.all(q) as NodeRow[]) seen.set(n.id, { node: n, rank: -50 });
  const fts = ftsQuery(q);
  if (fts) {
    const pool = Math.min(2000, Math.max(200, (offset + options.limit) * 4));
    for (const row of r.s.fts.all(fts, pool) as { id: number; rank: number }[]) {
      if (seen.has(row.id)) continue;
      const node = r.nodeById(row.id);
      if (node) seen.set(row.id, { node, rank: row.rank });
    }
  }
  const ranked: Candidate[] = [];
  for (const { node, rank } of seen.values()) {
    if (options.kinds && !options.kinds.has(node.kind)) continue;
    const { match, boost } = matchOf(node, q, qLower);
    const inDegree = r.inDegree(node.id);
    const stub = node.kind === 'external' ? 10 : 0;
    const score = boost - rank + 2 * Math.log1p(inDegree) - stub;
    ranked.push({ node, score: Math.round(score * 100) / 100, match, in_degree: inDegree });
  }
  ranked.sort((a, b) => b.score - a.score || a.node.uid.localeCompare(b.node.uid));
  return { candidates: ranked.slice(offset, offset + options.limit), total: ranked.length };
}

/** A caller's path as the repo-relative form the indexer stores (forward slashes, no `./`). */
export function normalisePath(repo: string, raw: string): string | undefined {
  let p = raw.trim().replaceAll('\\', '/');
  if (isAbsolute(p)) {
    const rel = relative(repo, p).replaceAll('\\', '/');
    if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
    p = rel;
  }
  while (p.startsWith('./')) p = p.slice(2);
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  if (p === '' || p === '.') return '.';
  if (p.split('/').includes('..')) return undefined;
  return p;
}

const UID_PREFIX = /^(code|doc|folder):/;

/** Candidates an ambiguous answer lists; its total counts them all. */
export const AMBIGUOUS_LISTED = 10;

/** `listed`: how many of an ambiguous name's candidates to return (they are all counted). */
export function resolveNode(
  r: GraphReader,
  repo: string,
  raw: string,
  listed: number = AMBIGUOUS_LISTED,
): Resolution {
  const query = raw.trim();
  const direct = r.node(query);
  if (direct) return { status: 'found', node: direct, from: 'direct' };

  // A path, or `path::qualified.name` (a uid without its kind).
  const sep = query.indexOf('::');
  const pathPart = normalisePath(repo, sep >= 0 ? query.slice(0, sep) : query);
  if (pathPart !== undefined && !UID_PREFIX.test(query)) {
    if (sep >= 0) {
      const name = query.slice(sep + 2);
      const rows = r.s.byPathAndName.all(pathPart, name, name) as NodeRow[];
      const exact = rows.filter((n) => n.qualified_name === name);
      const hits = exact.length > 0 ? exact : rows;
      if (hits.length === 1) return { status: 'found', node: hits[0]!, from: 'path_prefix' };
      if (hits.length > 1)
        return {
          status: 'ambiguous',
          from: 'path_prefix',
          candidates: hits
            .slice(0, listed)
            .map((node) => ({ node, score: 0, match: 'path', in_degree: r.inDegree(node.id) })),
          total: hits.length,
        };
    } else {
      const uids =
        pathPart === '.'
          ? ['folder:.']
          : [`code:file:${pathPart}`, `doc:file:${pathPart}`, `folder:${pathPart}`];
      for (const uid of uids) {
        const n = r.node(uid);
        if (n) return { status: 'found', node: n, from: 'path_prefix' };
      }
    }
  }

  // A name: exact label or qualified-name matches decide; otherwise a lone fuzzy hit is taken.
  // Every exact match is ranked, not only the first page: an ambiguous answer says how many there are.
  const name = sep >= 0 ? query.slice(sep + 2) : query;
  const isExact = (c: Candidate) => c.match === 'exact_label' || c.match === 'exact_qualified_name';
  let { candidates, total } = searchNodes(r, name, { limit: 200 });
  // Exact matches rank first: when the first page is all exact, the rest may be too, so rank them all.
  if (total > candidates.length && candidates.length > 0 && isExact(candidates[candidates.length - 1]!))
    ({ candidates, total } = searchNodes(r, name, { limit: total }));
  const exact = candidates.filter(isExact);
  const inRepo = exact.filter((c) => c.node.kind !== 'external');
  const decisive = inRepo.length > 0 ? inRepo : exact;
  if (decisive.length === 1) {
    const only = decisive[0]!.node;
    // Letter for letter (matchOf also calls a case-insensitive match exact_label), and the only
    // repository symbol that name matches exactly: the caller need not verify it. External stubs do not
    // count against it: `(unresolved)::get` is every untyped `.get()`, not a symbol anyone means.
    const verbatim = only.label === name.trim() || only.qualified_name === name.trim();
    const from = verbatim && only.kind !== 'external' ? 'exact_unique' : 'fuzzy_fts5';
    return { status: 'found', node: only, from };
  }
  if (decisive.length > 1)
    return {
      status: 'ambiguous',
      from: 'fuzzy_fts5',
      candidates: decisive.slice(0, listed),
      total: decisive.length,
    };
  if (candidates.length === 1) return { status: 'found', node: candidates[0]!.node, from: 'fuzzy_fts5' };
  return { status: 'none', candidates: candidates.slice(0, 5) };
}
