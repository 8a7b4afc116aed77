import { Type } from '@sinclair/typebox';
import { cycleThrough, stronglyConnected } from '../../graph/queries/cycles.ts';
import { defineTool } from '../define.ts';
import { graphCall, LimitInput, OffsetInput, TOOL_READ_ONLY } from './common.ts';

export const graphCyclesTool = defineTool({
  name: 'cos_graph_cycles',
  title: 'Dependency cycles',
  description:
    'Import cycles between files (or call cycles), each group with its members and a shortest cycle, largest first.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      edge_type: Type.Optional(
        Type.Union([Type.Literal('imports'), Type.Literal('calls')], { default: 'imports' }),
      ),
      limit: LimitInput(500, 50),
      offset: OffsetInput,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    edge_type: Type.String(),
    cycles: Type.Array(
      Type.Object({
        size: Type.Integer(),
        members: Type.Array(Type.String(), { description: 'uids in the group' }),
        cycle: Type.Array(Type.String(), {
          description: 'one shortest cycle, in edge order (the first follows the last)',
        }),
        files: Type.Array(Type.String()),
      }),
    ),
    total_count: Type.Integer(),
    self_loops: Type.Integer({ description: 'nodes with an edge to themselves (recursion, for calls)' }),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/cycles' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const { r } = call;
    const type = input.edge_type ?? 'imports';
    const { components, selfLoops } = stronglyConnected(r, type);
    components.sort((a, b) => b.length - a.length || Math.min(...a) - Math.min(...b));
    const offset = input.offset ?? 0;
    const limit = input.limit ?? 50;
    const uid = (id: number) => r.nodeById(id)?.uid ?? `#${id}`;
    const cycles = components.slice(offset, offset + limit).map((comp) => {
      const members = new Set(comp);
      const start = Math.min(...comp);
      const files = new Set<string>();
      for (const id of comp) {
        const p = r.nodeById(id)?.file_path;
        if (p) files.add(p);
      }
      return {
        size: comp.length,
        members: comp.map(uid).sort(),
        cycle: cycleThrough(r, type, start, members).map(uid),
        files: [...files].sort(),
      };
    });
    return {
      edge_type: type,
      cycles,
      total_count: components.length,
      self_loops: selfLoops.length,
      meta: {
        ...call.meta,
        next_offset: offset + limit < components.length ? offset + limit : null,
        // Unresolved calls can hide a cycle; imports between repo files resolve exactly.
        completeness: type === 'calls' ? 'lower_bound' : 'exact',
      },
    };
  },
});
