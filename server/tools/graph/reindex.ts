// cos_graph_reindex: the indexer's own tool (issue 5), beside the query tools of issue 6.
import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { type IndexProgress, repoPath } from '../../graph/indexer.ts';
import type { HubServices } from '../context.ts';
import { defineTool } from '../define.ts';

export const FreshnessSchema = Type.Object({
  generation: Type.Integer({ description: 'Graph generation: +1 per completed index pass' }),
  last_indexed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  files_pending: Type.Integer({ description: 'Files seen changed but not yet in the graph' }),
  indexing: Type.Boolean(),
  queued: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        "Place in the hub's queue of full index passes (one runs at a time across its projects) while this project's waits; absent otherwise",
    }),
  ),
});

export const GraphReindexInputSchema = Type.Object(
  {
    force: Type.Optional(Type.Boolean({ description: 're-extract unchanged files too' })),
    paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
        maxItems: 1000,
        description: 'default the whole repository',
      }),
    ),
  },
  { additionalProperties: false },
);

export const GraphReindexSchema = Type.Object({
  generation: Type.Integer(),
  files_seen: Type.Integer(),
  files_changed: Type.Integer({ description: 'Files (re-)extracted in this pass' }),
  files_deleted: Type.Integer(),
  files_failed: Type.Integer({ description: 'Files recorded with a parse error (what parsed is kept)' }),
  files_resolved: Type.Integer({ description: 'Files whose edges were re-resolved' }),
  nodes: Type.Integer(),
  edges: Type.Integer(),
  duration_ms: Type.Number(),
  freshness: FreshnessSchema,
});

export const graphReindexTool = defineTool({
  name: 'cos_graph_reindex',
  title: 'Re-index the code graph',
  description:
    'Updates the code graph from the working tree now (changed files, or all with force). The hub indexes on save; use it after a big checkout.',
  module: 'graph',
  layer: 'graph',
  input: GraphReindexInputSchema,
  output: GraphReindexSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'POST', path: '/api/graph/reindex' },
  handler: async (ctx, input) => {
    // A hub built without services (some tests, tools-only tooling) has no indexer to ask.
    const graph = (ctx.services as Partial<HubServices>).graph;
    if (!graph) throw new ToolError('unavailable', 'the graph indexer is not running in this hub');
    // Named by position: echoing an absolute path back would put machine paths in the message.
    const outside = input.paths?.findIndex((p) => repoPath(p) === undefined) ?? -1;
    if (outside >= 0) {
      throw new ToolError(
        'validation',
        `paths[${outside}] leads outside the repository (absolute, or up with ".."); pass repository-relative paths`,
      );
    }
    // MCP progress may only increase, but each phase counts from zero: a phase counts on from where the
    // previous one ended, and a report that would not move forward is dropped.
    let base = 0;
    let phase = '';
    let phaseTotal = 0;
    let last = -1;
    const progress = (p: IndexProgress) => {
      if (p.phase === 'done') return;
      if (p.phase !== phase) {
        base += phaseTotal;
        phase = p.phase;
      }
      phaseTotal = p.total;
      const value = base + p.done;
      if (value <= last) return;
      last = value;
      ctx.progress({ progress: value, ...(p.total > 0 ? { total: base + p.total } : {}), message: p.phase });
    };
    const r = await graph.reindex({
      ...(input.force ? { force: true } : {}),
      ...(input.paths ? { paths: input.paths } : {}),
      onProgress: (p) => progress(p),
    });
    return {
      generation: r.generation,
      files_seen: r.filesSeen,
      files_changed: r.filesChanged,
      files_deleted: r.filesDeleted,
      files_failed: r.filesFailed,
      files_resolved: r.filesResolved,
      nodes: r.nodes,
      edges: r.edges,
      duration_ms: Math.round(r.durationMs * 10) / 10,
      freshness: graph.freshness(),
    };
  },
});
