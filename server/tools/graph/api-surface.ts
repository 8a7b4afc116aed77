// cos_graph_api_surface: what the repository exposes, as the extractors recognised it (extract/surface/):
// HTTP routes, MCP tools, CLI commands and event handlers, each with its handler. Pages by cursor; an
// agent's page is also cut to fit its budget, and the cursor then points after the last entry shown.
import { Type } from '@sinclair/typebox';
import { budgetSize } from '../../../shared/envelope/index.ts';
import { matchesPath, surfaceEntries } from '../../graph/queries/surface.ts';
import { SURFACE_KINDS } from '../../graph/queries/vocabulary.ts';
import { defineTool } from '../define.ts';
import { graphCall, LimitInput, TOOL_READ_ONLY } from './common.ts';
import { cursorFor, cursorOffset } from './export-page.ts';

/** Characters of entries an agent's page holds (the budget is 32 K; meta and the rest fit in the remainder). */
export const AGENT_PAGE_CHARS = 24_000;

/** The previous page's next_cursor (tools/list leaves it undescribed: the name says it). */
export const CursorInput = Type.Optional(Type.String({ minLength: 1, maxLength: 200 }));

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);

export const SurfaceKindSchema = Type.Union(SURFACE_KINDS.map((k) => Type.Literal(k)));

export const SurfaceEntrySchema = Type.Object({
  uid: Type.String(),
  kind: SurfaceKindSchema,
  method: Nullable(Type.String({ description: 'HTTP method; null for any method and for non-routes' })),
  path: Nullable(Type.String({ description: 'route path as written (prefixes applied)' })),
  name: Type.String({ description: 'METHOD path, or the tool, command or event name' }),
  framework: Type.String(),
  handler: Nullable(
    Type.Object({
      uid: Type.String(),
      label: Type.String(),
      file: Nullable(Type.String()),
      line: Nullable(Type.Integer()),
    }),
  ),
  file: Type.String(),
  line: Type.Integer(),
});

export const graphApiSurfaceTool = defineTool({
  name: 'cos_graph_api_surface',
  title: 'What the repository exposes',
  description:
    'Routes, MCP tools, CLI commands and event handlers the code registers, each with its handler.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      kind: Type.Optional(SurfaceKindSchema),
      path: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 1000,
          description: 'route prefix (/api), file or folder',
        }),
      ),
      limit: LimitInput(500, 100),
      cursor: CursorInput,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    entries: Type.Array(SurfaceEntrySchema),
    total: Type.Integer({ description: 'entries matching kind and path' }),
    by_kind: Type.Record(Type.String(), Type.Integer(), { description: 'entries matching path, per kind' }),
    next_cursor: Nullable(Type.String()),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/api-surface' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const request = JSON.stringify({ t: 'surface', kind: input.kind ?? null, path: input.path ?? null });
    const generation = call.freshness.generation;
    const offset = cursorOffset(input.cursor, request, generation);
    const limit = input.limit ?? 100;
    const inPath = input.path
      ? surfaceEntries(ctx.db).filter((e) => matchesPath(e, input.path!))
      : surfaceEntries(ctx.db);
    const byKind: Record<string, number> = {};
    for (const k of SURFACE_KINDS) byKind[k] = 0;
    for (const e of inPath) byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
    const all = input.kind ? inPath.filter((e) => e.kind === input.kind) : inPath;
    const page = [];
    let left = ctx.caller.transport === 'rest' ? Number.POSITIVE_INFINITY : AGENT_PAGE_CHARS;
    for (const e of all.slice(offset, offset + limit)) {
      const size = budgetSize(JSON.stringify(e)) + 1;
      if (size > left && page.length > 0) break;
      left -= size;
      page.push(e);
    }
    const end = offset + page.length;
    const next = end < all.length ? cursorFor(end, request, generation) : null;
    return {
      entries: page,
      total: all.length,
      by_kind: byKind,
      next_cursor: next,
      meta: {
        ...call.meta,
        next_cursor: next,
        ...(page.length < Math.min(limit, all.length - offset)
          ? { held_back_reason: 'page fitted to the agent budget; follow next_cursor for the rest' }
          : {}),
      },
    };
  },
});
