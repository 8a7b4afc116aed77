// The costliest search input valid input can build, shared by the budget tests, `npm run bench:search`
// and the fuzz family `search`: a row that is one letter ten thousand times (within every field limit),
// and queries of as many one-letter terms, and spellings FTS5 reads as that letter, as a query may hold.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const BAD_TEXT = 'a '.repeat(10_000).trim();

/** Spellings FTS5 reads as the same word `a` (case, diacritics, `_`). */
export const SPELLINGS = [
  'a',
  'A',
  'á',
  'à',
  'â',
  'ä',
  'ã',
  'å',
  'ā',
  'ă',
  'ą',
  'ǎ',
  'ȁ',
  'ȃ',
  'ạ',
  'ả',
  'ấ',
  'a_',
  '_a',
  'a__',
];

/** What each of worstQueries() is, in its order (benchmark tables name them). */
export const WORST_QUERY_NAMES = [
  'the letter a, repeated',
  'twenty spellings of a',
  'the alphabet',
  'growing prefixes a, aa, aaa …',
] as const;

/** The worst queries for a query field of `maxLength` characters. */
export function worstQueries(maxLength: number): string[] {
  const fit = (words: string[]) => {
    let out = '';
    for (const w of words) {
      if (out.length + w.length + 1 > maxLength) break;
      out = out ? `${out} ${w}` : w;
    }
    return out;
  };
  return [
    fit(Array(500).fill('a')),
    fit(SPELLINGS),
    fit('abcdefghijklmnopqrstuvwxyz'.split('')),
    fit(Array.from({ length: 32 }, (_, i) => 'a'.repeat(i + 1))),
  ];
}

/** Each search route and its query's maxLength. */
export const SEARCH_ROUTES: [name: string, path: string, maxLength: number][] = [
  ['cos_task_search', '/api/board/search', 500],
  ['cos_search (memory)', '/api/search/memory', 500],
  ['cos_doc_search', '/api/search/docs', 500],
  ['cos_search_all', '/api/search', 200],
];

/** A document of the letter in a hundred chunks, each as costly as a chunk can be (before the hub starts). */
export function writeBadDoc(repo: string): void {
  mkdirSync(join(repo, 'docs'), { recursive: true });
  writeFileSync(join(repo, 'docs', 'a.md'), `# a\n\n${'a '.repeat(100_000)}\n`);
}

/** `rows` tasks and observations of the letter through the REST API of a running hub. */
export async function postBadRows(base: string, rows = 3): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  };
  for (let i = 0; i < rows; i++) {
    await post('/api/board/tasks', { title: `a ${i}`, outcome: BAD_TEXT, acceptance: BAD_TEXT });
    await post('/api/memory/observations', { title: `a ${i}`, narrative: BAD_TEXT, type: 'fact' });
  }
}

/** Waits until the docs index has the bad document. */
export async function untilDocIndexed(base: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${base}/api/search/docs?query=a&limit=1`);
    const docs = (await res.json()) as { data?: { results: unknown[] } };
    if ((docs.data?.results.length ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the docs index never had docs/a.md');
}
