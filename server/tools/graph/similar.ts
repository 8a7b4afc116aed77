import { Type } from '@sinclair/typebox';
import type { GraphReader, NodeRow } from '../../graph/queries/store.ts';
import { splitWords } from '../../graph/uid.ts';
import { defineTool } from '../define.ts';
import {
  graphCall,
  LimitInput,
  NodeRefInput,
  NodeSchema,
  nodeOut,
  OffsetInput,
  orAmbiguous,
  resolveArg,
  TOOL_READ_ONLY,
} from './common.ts';

const FAMILY: Record<string, string> = {
  function: 'callable',
  method: 'callable',
  class: 'type',
  interface: 'type',
  type: 'type',
  enum: 'type',
  variable: 'value',
  constant: 'value',
};
const familyOf = (kind: string) => FAMILY[kind] ?? kind;

const wordsOf = (label: string) => new Set(splitWords(label).toLowerCase().split(' ').filter(Boolean));

function jaccard(a: ReadonlySet<string | number>, b: ReadonlySet<string | number>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Parameters in a one-line signature: commas at depth one inside the first parentheses. */
function paramCount(signature: string | null): number | undefined {
  if (!signature) return undefined;
  const open = signature.indexOf('(');
  if (open < 0) return undefined;
  let depth = 0;
  let count = 0;
  let any = false;
  for (let i = open; i < signature.length; i++) {
    const c = signature[i];
    if (c === '(' || c === '<' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === '>' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) break;
    } else if (depth === 1) {
      if (c === ',') count++;
      else if (c !== ' ') any = true;
    }
  }
  return any ? count + 1 : 0;
}

const calleesOf = (r: GraphReader, id: number) =>
  new Set(r.out(id, new Set(['calls', 'constructs'])).map((e) => e.other));

export const graphSimilarTool = defineTool({
  name: 'cos_graph_similar',
  title: 'Symbols alike by name and shape',
  description:
    'Symbols like this one by name, callees and shape: duplicated logic, or a sibling to copy from. Each result says why.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    { node: NodeRefInput(), limit: LimitInput(100, 15), offset: OffsetInput },
    { additionalProperties: false },
  ),
  output: orAmbiguous(
    Type.Object({
      node: NodeSchema,
      results: Type.Array(
        Type.Object({
          uid: Type.String(),
          kind: Type.String(),
          label: Type.String(),
          file_path: Type.Union([Type.String(), Type.Null()]),
          start_line: Type.Union([Type.Integer(), Type.Null()]),
          score: Type.Number({ description: '0..1' }),
          name_similarity: Type.Number(),
          shared_callees: Type.Integer(),
          reasons: Type.Array(Type.String()),
        }),
      ),
      total_count: Type.Integer({ description: 'symbols scored; meta.next_offset pages them' }),
    }),
  ),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/similar' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const res = resolveArg(ctx, call, input.node);
    if ('ambiguous' in res) return { ...res.ambiguous, meta: call.meta };
    const { r } = call;
    const root = res.node;
    const family = familyOf(root.kind);
    const rootWords = wordsOf(root.label);
    const rootCallees = calleesOf(r, root.id);
    const rootParams = paramCount(root.signature);
    const rootSpan = (root.end_line ?? 0) - (root.start_line ?? 0) + 1;

    const pool = new Map<number, NodeRow>();
    const consider = (n: NodeRow | undefined) => {
      if (!n || n.id === root.id || pool.has(n.id) || familyOf(n.kind) !== family || n.kind === 'external')
        return;
      pool.set(n.id, n);
    };
    if (rootWords.size > 0) {
      const q = [...rootWords].map((w) => `"${w.replaceAll('"', '""')}"*`).join(' OR ');
      for (const row of r.s.fts.all(q, 400) as { id: number }[]) consider(r.nodeById(row.id));
    }
    let fanIn = 0;
    for (const callee of [...rootCallees].slice(0, 30)) {
      for (const e of r.in(callee, new Set(['calls'])).slice(0, 200)) {
        consider(r.nodeById(e.other));
        if (++fanIn > 3000) break;
      }
    }

    const scored = [];
    for (const n of pool.values()) {
      const reasons: string[] = [];
      const name = jaccard(rootWords, wordsOf(n.label));
      if (name > 0) reasons.push(`name shares ${Math.round(name * 100)}% of its words`);
      const callees = calleesOf(r, n.id);
      let shared = 0;
      for (const c of callees) if (rootCallees.has(c)) shared++;
      const calleeSim = jaccard(rootCallees, callees);
      if (shared > 0) reasons.push(`${shared} callee${shared === 1 ? '' : 's'} in common`);
      let shape = n.kind === root.kind ? 0.4 : 0.2;
      const params = paramCount(n.signature);
      if (rootParams !== undefined && params === rootParams) {
        shape += 0.3;
        reasons.push(`same parameter count (${params})`);
      }
      const span = (n.end_line ?? 0) - (n.start_line ?? 0) + 1;
      if (rootSpan > 0 && span > 0) shape += 0.3 * (Math.min(span, rootSpan) / Math.max(span, rootSpan));
      const score = 0.45 * name + 0.35 * calleeSim + 0.2 * shape;
      if (name === 0 && shared === 0) continue;
      scored.push({
        uid: n.uid,
        kind: n.kind,
        label: n.label,
        file_path: n.file_path,
        start_line: n.start_line,
        score: Math.round(score * 1000) / 1000,
        name_similarity: Math.round(name * 1000) / 1000,
        shared_callees: shared,
        reasons,
      });
    }
    scored.sort((a, b) => b.score - a.score || a.uid.localeCompare(b.uid));
    const limit = input.limit ?? 15;
    const offset = input.offset ?? 0;
    return {
      node: nodeOut(root),
      results: scored.slice(offset, offset + limit),
      total_count: scored.length,
      meta: {
        ...call.meta,
        next_offset: offset + limit < scored.length ? offset + limit : null,
        resolved_from: res.from,
        candidates_considered: pool.size,
        completeness: 'exact',
      },
    };
  },
});
