import { Type } from '@sinclair/typebox';
import type { IndexResult } from '../../graph/indexer.ts';
import { defineTool } from '../define.ts';
import { ToolError } from '../errors.ts';
import { graphService } from './common.ts';

const PHASES = ['scan', 'extract', 'resolve', 'done'] as const;

export const graphReindexTool = defineTool({
  name: 'cos_graph_reindex',
  title: 'Re-index the code graph',
  description:
    'Brings the code graph up to date now: changed, new and deleted files (or only `paths`), or every file with force: true. Reports progress notifications while it runs (the live stream gets index-progress events) and answers with the pass figures. The hub also indexes on its own as files change.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      force: Type.Optional(
        Type.Boolean({ description: 're-extract every file even if unchanged (default false)' }),
      ),
      paths: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
          maxItems: 1000,
          description: 'repo-relative files or folders only (default: the whole repository)',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    generation: Type.Integer(),
    files_seen: Type.Integer(),
    files_changed: Type.Integer(),
    files_deleted: Type.Integer(),
    files_failed: Type.Integer(),
    files_resolved: Type.Integer(),
    nodes: Type.Integer(),
    edges: Type.Integer(),
    duration_ms: Type.Number(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'POST', path: '/api/graph/reindex' },
  handler: async (ctx, input) => {
    const service = graphService(ctx);
    if (!service) throw new ToolError('unavailable', 'the graph indexer is not running in this hub');
    for (const p of input.paths ?? []) {
      if (p.startsWith('/') || p.split(/[\\/]/).includes('..'))
        throw new ToolError(
          'validation',
          `paths must be repo-relative without "..": got "${p.slice(0, 200)}"`,
        );
    }
    let result: IndexResult;
    try {
      result = await service.reindex({
        ...(input.force ? { force: true } : {}),
        ...(input.paths?.length
          ? { paths: input.paths.map((p) => p.replace(/^\.\//, '').replace(/\/+$/, '')) }
          : {}),
        // Four phases, each 0..1 of its share: one monotonic progress value for the client's bar.
        onProgress: (p) => {
          const phase = PHASES.indexOf(p.phase);
          const within = p.total > 0 ? p.done / p.total : p.phase === 'done' ? 1 : 0;
          ctx.progress({
            progress: Math.round((phase + within) * 250),
            total: 1000,
            message: `${p.phase} ${p.done}/${p.total}`,
          });
        },
      });
    } catch (err) {
      throw new ToolError('unavailable', `the graph indexer failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    return {
      generation: result.generation,
      files_seen: result.filesSeen,
      files_changed: result.filesChanged,
      files_deleted: result.filesDeleted,
      files_failed: result.filesFailed,
      files_resolved: result.filesResolved,
      nodes: result.nodes,
      edges: result.edges,
      duration_ms: Math.round(result.durationMs),
      meta: { freshness: service.freshness() },
    };
  },
});
