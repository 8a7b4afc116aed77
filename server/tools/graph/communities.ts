import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { communityOut, linksOf } from '../../graph/queries/communities.ts';
import { defineTool } from '../define.ts';
import { LimitInput, TOOL_READ_ONLY } from './common.ts';
import { fittingCount, mapCall, nextCursor, PROBE_CURSOR, pageStart, pastEnd } from './map-common.ts';

const Ref = Type.Object({ uid: Type.String(), label: Type.String(), kind: Type.String() });

export const graphCommunitiesTool = defineTool({
  name: 'cos_graph_communities',
  title: 'Communities of code',
  description:
    'Groups of code that belong together (Louvain on the reference graph, deterministic), largest first: name, size, central symbols, linked groups. community pages one group.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      level: Type.Optional(Type.Union([Type.Literal('file'), Type.Literal('symbol')], { default: 'file' })),
      community: Type.Optional(Type.Integer({ minimum: 1, description: 'an id: its members, paged' })),
      limit: LimitInput(50, 10),
      cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'meta.next_cursor' })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    level: Type.String(),
    modularity: Type.Number(),
    total_count: Type.Integer({ description: 'communities (or members of the one asked for)' }),
    isolated: Type.Integer({ description: 'nodes with no edge at this level, in no community' }),
    communities: Type.Array(
      Type.Object({
        id: Type.Integer(),
        name: Type.String(),
        folder: Type.String(),
        size: Type.Integer(),
        central: Type.Array(Ref),
        members: Type.Array(Type.String(), { description: 'uids, most important first' }),
        links: Type.Array(Type.Object({ community: Type.Integer(), weight: Type.Integer() })),
      }),
    ),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/communities' },
  handler: async (ctx, input) => {
    const call = await mapCall(ctx);
    const { m } = call;
    const levelName = input.level ?? 'file';
    const level = m.levels[levelName];
    const limit = input.limit ?? 10;
    const request = { level: levelName, community: input.community ?? null };
    const offset = pageStart(input.cursor, request, m);
    const links = linksOf(level);
    const head = { level: levelName, modularity: level.modularity, isolated: level.isolated };
    const meta = { ...call.meta, completeness: 'lower_bound' as const };
    if (input.community !== undefined) {
      const c = level.communities[input.community - 1];
      if (!c)
        throw new ToolError(
          'not_found',
          `no community ${input.community} at level ${levelName}: there are ${level.communities.length}; ask without community for the list`,
        );
      pastEnd(offset, c.members.length);
      const out = communityOut(m, c, links);
      const uids = c.members.slice(offset, offset + limit).map((i) => m.uids[i]!);
      const probeMeta = { ...meta, next_cursor: PROBE_CURSOR };
      const answer = (page: readonly string[]) => ({
        ...head,
        total_count: c.members.length,
        communities: [{ ...out, members: [...page] }],
        meta: probeMeta,
      });
      const k = fittingCount(ctx, uids, answer);
      return {
        ...answer(uids.slice(0, k)),
        meta: { ...meta, next_cursor: nextCursor(offset + k, c.members.length, request, m) },
      };
    }
    const total = level.communities.length;
    pastEnd(offset, total);
    const page = level.communities.slice(offset, offset + limit).map((c) => communityOut(m, c, links));
    const more = { members: 'each lists its first members; community: <id> pages them all' };
    const answer = (list: readonly (typeof page)[number][]) => ({
      ...head,
      total_count: total,
      communities: [...list],
      meta: { ...meta, next_cursor: PROBE_CURSOR, ...more },
    });
    const k = fittingCount(ctx, page, answer);
    return {
      ...answer(page.slice(0, k)),
      meta: { ...meta, next_cursor: nextCursor(offset + k, total, request, m), ...more },
    };
  },
});
