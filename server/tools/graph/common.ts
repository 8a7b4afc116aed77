// What every graph tool shares: the node shape it answers with, freshness in meta, node resolution
// (uid, path or name) with candidates instead of guesses, and the completeness signal.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import type { Candidate, ResolvedFrom } from '../../graph/queries/resolve.ts';
import { resolveNode } from '../../graph/queries/resolve.ts';
import { type GraphReader, graphReader, type NodeRow } from '../../graph/queries/store.ts';
import { EDGE_TYPES, NODE_KINDS, SURFACE_KINDS } from '../../graph/queries/vocabulary.ts';
import type { Freshness, GraphService } from '../../graph/service.ts';
import { UNRESOLVED_MODULE } from '../../graph/uid.ts';
import type { HubServices, ToolContext } from '../context.ts';

export type EdgeTypeName = (typeof EDGE_TYPES)[number];

export const EdgeTypeSchema = Type.Union(
  EDGE_TYPES.map((t) => Type.Literal(t)),
  {},
);
export const NodeKindSchema = Type.Union(
  NODE_KINDS.map((k) => Type.Literal(k)),
  {},
);
/** Kinds of code symbols, surface entries (routes, tools, commands, events) aside. */
export const SymbolKindSchema = Type.Union(
  NODE_KINDS.filter((k) => !(SURFACE_KINDS as readonly string[]).includes(k)).map((k) => Type.Literal(k)),
  {},
);

/** A node as agents name it (the forms are listed once, in the MCP instructions); `note` adds to it. */
export const NodeRefInput = (note?: string) =>
  Type.String({
    minLength: 1,
    maxLength: 1000,
    description: note ? `uid, path or name; ${note}` : 'uid, path or name',
  });

export const LimitInput = (max: number, fallback: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: max, default: fallback }));
export const OffsetInput = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
  }),
);

export const NodeSchema = Type.Object({
  uid: Type.String(),
  kind: Type.String(),
  label: Type.String(),
  qualified_name: Type.String(),
  file_path: Type.Union([Type.String(), Type.Null()]),
  start_line: Type.Union([Type.Integer(), Type.Null()]),
  end_line: Type.Union([Type.Integer(), Type.Null()]),
  signature: Type.Optional(Type.String()),
});
export type NodeOut = Static<typeof NodeSchema>;

export function nodeOut(n: NodeRow): NodeOut {
  const out: NodeOut = {
    uid: n.uid,
    kind: n.kind,
    label: n.label,
    qualified_name: n.qualified_name,
    file_path: n.file_path,
    start_line: n.start_line,
    end_line: n.end_line,
  };
  if (n.signature) out.signature = n.signature;
  return out;
}

export const CandidateSchema = Type.Object({
  uid: Type.String(),
  kind: Type.String(),
  label: Type.String(),
  qualified_name: Type.String(),
  file_path: Type.Union([Type.String(), Type.Null()]),
  start_line: Type.Union([Type.Integer(), Type.Null()]),
  match: Type.String({ description: 'uid | path | exact_label | exact_qualified_name | prefix | fuzzy' }),
  score: Type.Number(),
  in_degree: Type.Integer({ description: 'edges into it, containment aside' }),
});

export function candidateOut(c: Candidate): Static<typeof CandidateSchema> {
  return {
    uid: c.node.uid,
    kind: c.node.kind,
    label: c.node.label,
    qualified_name: c.node.qualified_name,
    file_path: c.node.file_path,
    start_line: c.node.start_line,
    match: c.match,
    score: c.score,
    in_degree: c.in_degree,
  };
}

/** The answer when a name matches several symbols equally well: pick a uid and ask again. */
export const AmbiguousSchema = Type.Object({
  ambiguous: Type.Literal(true),
  query: Type.String(),
  results: Type.Array(CandidateSchema, { description: 'ranked candidates; call again with one uid' }),
  total: Type.Integer({
    description:
      'how many symbols match equally well; results lists the best ten, cos_graph_search pages them all',
  }),
});
export type AmbiguousAnswer = Static<typeof AmbiguousSchema>;

/** A tool's output: its own answer, or the candidates of an ambiguous name. */
export const orAmbiguous = <T extends TSchema>(schema: T) => Type.Union([schema, AmbiguousSchema]);

export type { Freshness };

export function graphService(ctx: ToolContext): GraphService | undefined {
  return (ctx.services as Partial<HubServices>).graph;
}

/** Freshness from the graph service (it adds the watcher's pending files), else the state row. */
export function freshnessOf(ctx: ToolContext, r: GraphReader): Freshness {
  const service = graphService(ctx);
  if (service) return service.freshness();
  const s = r.state();
  return {
    generation: s.generation,
    last_indexed_at: s.last_indexed_at === null ? null : new Date(s.last_indexed_at).toISOString(),
    files_pending: s.files_pending,
    indexing: s.indexing === 1,
  };
}

export interface GraphCall {
  r: GraphReader;
  freshness: Freshness;
  /** Meta every graph answer carries: freshness, and a note while the first index has not finished. */
  meta: Record<string, unknown>;
}

export function graphCall(ctx: ToolContext): GraphCall {
  const r = graphReader(ctx.db);
  const freshness = freshnessOf(ctx, r);
  const meta: Record<string, unknown> = { freshness };
  if (freshness.last_indexed_at === null) {
    meta.indexed = false;
    meta.note =
      'the graph has not finished its first index: this answer covers only what is indexed so far; retry when meta.freshness.last_indexed_at is set';
  }
  return { r, freshness, meta };
}

/**
 * The caller's value, quoted whole or not at all: a cut quote could pass along part of a path the
 * caller never meant to see echoed, and messages never carry more than the input itself.
 */
export function quoteInput(value: string): string {
  return value.length <= 200 ? `"${value}"` : `the ${value.length}-character value given`;
}

function describeCandidate(c: Candidate): string {
  const where = c.node.file_path ? ` at ${c.node.file_path}:${c.node.start_line ?? 1}` : '';
  return `${c.node.uid} (${c.node.kind}${where})`;
}

export type Resolved = { node: NodeRow; from: ResolvedFrom } | { ambiguous: AmbiguousAnswer };

/**
 * Resolves a node argument. Unknown: not_found naming the closest candidates. Ambiguous: the ranked
 * candidates as an answer (never a guess).
 */
export function resolveArg(ctx: ToolContext, call: GraphCall, raw: string, what = 'node'): Resolved {
  const res = resolveNode(call.r, ctx.config.repo, raw);
  if (res.status === 'found') return { node: res.node, from: res.from };
  if (res.status === 'ambiguous') {
    call.meta.resolved_from = res.from;
    call.meta.ambiguous = true;
    return {
      ambiguous: { ambiguous: true, query: raw, results: res.candidates.map(candidateOut), total: res.total },
    };
  }
  const hint =
    res.candidates.length > 0
      ? `; closest: ${res.candidates.map(describeCandidate).join(', ')}. Pass one of these uids`
      : '; try cos_graph_search with part of the name';
  const pending =
    call.freshness.last_indexed_at === null ? ' (the graph is still being indexed: retry shortly)' : '';
  throw new ToolError('not_found', `no ${what} matches ${quoteInput(raw)}${pending}${hint}`);
}

/** Edge types from an input list, validated by the schema already; undefined when none were given. */
export function typeSet(types: readonly string[] | undefined): Set<string> | undefined {
  return types && types.length > 0 ? new Set(types) : undefined;
}

/**
 * Calls whose receiver could not be typed point at `code:external:(unresolved)::<name>`; any of them may
 * really target a symbol with that label, so counts of callers are lower bounds while they exist.
 */
export function unresolvedCallsNamed(r: GraphReader, label: string): number {
  const stub = r.node(`code:external:${UNRESOLVED_MODULE}::${label}`);
  return stub ? r.inDegree(stub.id) : 0;
}

/** Whether inbound edges of `node` can be missing: calls resolved by name only that carry its label. */
export function completenessOf(
  r: GraphReader,
  node: NodeRow,
): { completeness: 'exact' | 'lower_bound'; unresolved_calls_same_name?: number } {
  if (
    node.kind === 'function' ||
    node.kind === 'method' ||
    node.kind === 'variable' ||
    node.kind === 'constant'
  ) {
    const n = unresolvedCallsNamed(r, node.label);
    if (n > 0) return { completeness: 'lower_bound', unresolved_calls_same_name: n };
  }
  return { completeness: 'exact' };
}

export const TOOL_READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
