// How a file's facts are stored (graph_files.facts): the references it makes, by name, and what
// resolution needs of it besides its nodes. Stored compact: each referring node's uid once, and each
// reference as an array. A cold pass of issue 16's Python-heavy mix stored 19 MB of facts as plain
// objects (twice its sources), written once and read back whole for resolution.
import type { EdgeType, FileFacts, Ref } from './types.ts';

/**
 * The stored form: `from` holds the referring uids, and each ref is `[type, from index, name, line,
 * col]`, followed by an object of its other fields when it has any (`module`, `cls`, …: whatever the
 * extractors record, so a new field needs no change here).
 */
interface Stored extends Omit<FileFacts, 'refs'> {
  v: 2;
  from: string[];
  refs: Row[];
}
type Row = [string, number, string, number, number, Partial<Ref>?];

export function encodeFacts(facts: FileFacts): string {
  const from: string[] = [];
  const index = new Map<string, number>();
  const refs = facts.refs.map((r): Row => {
    const { type, from: source, name, line, col, ...other } = r;
    let k = index.get(source);
    if (k === undefined) {
      k = from.length;
      from.push(source);
      index.set(source, k);
    }
    for (const key in other)
      if (other[key as keyof typeof other] !== undefined) return [type, k, name, line, col, other];
    return [type, k, name, line, col];
  });
  const { refs: _refs, ...rest } = facts;
  return JSON.stringify({ v: 2, ...rest, from, refs } satisfies Stored);
}

/** Reads either form: the compact one, or the plain objects written before it. */
export function decodeFacts(text: string): FileFacts {
  const parsed = JSON.parse(text) as Stored | FileFacts;
  if (!('v' in parsed) || parsed.v !== 2) return parsed as FileFacts;
  const { v: _v, from, refs, ...rest } = parsed;
  return {
    ...rest,
    refs: refs.map((row) => {
      const ref: Ref = {
        type: row[0] as EdgeType,
        from: from[row[1]]!,
        name: row[2],
        line: row[3],
        col: row[4],
      };
      return row[5] ? Object.assign(ref, row[5]) : ref;
    }),
  };
}
