import { Type } from '@sinclair/typebox';
import { derived } from '../../graph/queries/map-cache.ts';
import { buildOverview } from '../../graph/queries/overview.ts';
import { defineTool } from '../define.ts';
import { TOOL_READ_ONLY } from './common.ts';
import { mapCall } from './map-common.ts';

const Ref = Type.Object({ uid: Type.String(), label: Type.String(), kind: Type.String() });
const Link = Type.Object({ community: Type.Integer(), weight: Type.Integer() });

/** How much the overview lists: it must stay under 2,000 tokens (8,000 characters) on any repository. */
export const OVERVIEW_LISTS = { communities: 8, symbols: 10 } as const;

export const OverviewSchema = Type.Object({
  size: Type.Object({ files: Type.Integer(), nodes: Type.Integer(), edges: Type.Integer() }),
  languages: Type.Array(
    Type.Object({ language: Type.String(), files: Type.Integer(), bytes: Type.Integer() }),
  ),
  api_surface: Type.Union([
    Type.Object({
      total: Type.Integer(),
      routes: Type.Array(
        Type.Object({
          method: Type.String(),
          path: Type.String(),
          handler: Type.Union([Type.String(), Type.Null()]),
          file: Type.Union([Type.String(), Type.Null()]),
        }),
      ),
    }),
    Type.Null(),
  ]),
  entry_points: Type.Union([
    Type.Object({
      total: Type.Integer(),
      items: Type.Array(
        Type.Object({
          uid: Type.String(),
          label: Type.String(),
          kind: Type.String(),
          file: Type.Union([Type.String(), Type.Null()]),
        }),
      ),
    }),
    Type.Null(),
  ]),
  communities: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      size: Type.Integer(),
      central: Type.Array(Ref),
      links: Type.Array(Link),
    }),
  ),
  communities_total: Type.Integer(),
  modularity: Type.Number(),
  most_depended_on: Type.Array(
    Type.Object({
      uid: Type.String(),
      label: Type.String(),
      kind: Type.String(),
      file: Type.Union([Type.String(), Type.Null()]),
      in_degree: Type.Integer(),
      score: Type.Number(),
    }),
  ),
  next: Type.Array(Type.String(), { description: 'tool calls that go deeper' }),
});

export const graphOverviewTool = defineTool({
  name: 'cos_graph_overview',
  title: 'Repository map',
  description:
    "The repository's map in under 2,000 tokens: languages and size, API surface, entry points, largest communities, most depended-on symbols, and the calls to go deeper.",
  module: 'graph',
  layer: 'graph',
  input: Type.Object({}, { additionalProperties: false }),
  output: OverviewSchema,
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/overview' },
  handler: async (ctx) => {
    const call = await mapCall(ctx);
    const o = derived(ctx.db, call.m, 'overview', () => buildOverview(call.r, call.m, OVERVIEW_LISTS));
    return { ...o, meta: { ...call.meta, completeness: 'lower_bound' } };
  },
});
