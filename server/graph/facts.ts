// How a file's facts are stored (graph_files.facts): the references it makes, by name, and what
// resolution needs of it besides its nodes. Stored compact: each referring node's uid once, and each
// reference as an array. A cold pass of issue 16's Python-heavy mix stored 19 MB of facts as plain
// objects (twice its sources), written once and read back whole for resolution.
import type { EdgeType, FileFacts, Ref } from './types.ts';

/** The stored form: `from` holds the referring uids, each ref `[type, from index, name, line, col, module, cls, recvType]`, trailing absent fields left out. */
interface Stored extends Omit<FileFacts, 'refs'> {
  v: 2;
  from: string[];
  refs: (string | number | null)[][];
}

export function encodeFacts(facts: FileFacts): string {
  const from: string[] = [];
  const index = new Map<string, number>();
  const refs = facts.refs.map((r) => {
    let k = index.get(r.from);
    if (k === undefined) {
      k = from.length;
      from.push(r.from);
      index.set(r.from, k);
    }
    const row: (string | number | null)[] = [r.type, k, r.name, r.line, r.col];
    if (r.module !== undefined || r.cls !== undefined || r.recvType !== undefined) {
      row.push(r.module ?? null);
      if (r.cls !== undefined || r.recvType !== undefined) row.push(r.cls ?? null);
      if (r.recvType !== undefined) row.push(r.recvType);
    }
    return row;
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
        from: from[row[1] as number]!,
        name: row[2] as string,
        line: row[3] as number,
        col: row[4] as number,
      };
      if (row.length > 5) {
        if (row[5] !== null) ref.module = row[5] as string;
        if (row[6] != null) ref.cls = row[6] as string;
        if (row[7] != null) ref.recvType = row[7] as string;
      }
      return ref;
    }),
  };
}
