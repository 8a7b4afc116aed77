import { Type } from '@sinclair/typebox';
import { withMembers } from '../../graph/queries/traverse.ts';
import { UNRESOLVED_MODULE } from '../../graph/uid.ts';
import { defineTool } from '../define.ts';
import {
  graphCall,
  NodeRefInput,
  NodeSchema,
  nodeOut,
  orAmbiguous,
  resolveArg,
  TOOL_READ_ONLY,
} from './common.ts';

/** `handles`: from a route, tool, command or event entry to its handler, the first step of what it runs. */
const FOLLOW = new Set(['calls', 'constructs', 'handles']);
/** Kinds whose nested declarations run as part of them. */
const NESTING = new Set(['function', 'method', 'constant', 'variable']);

const StepSchema = Type.Object({
  depth: Type.Integer(),
  from: Type.String({ description: 'caller uid' }),
  to: Type.String({ description: 'callee uid' }),
  to_label: Type.String(),
  to_kind: Type.String(),
  edge_type: Type.String({ description: 'calls, constructs, or handles (an API entry to its handler)' }),
  file_path: Type.Union([Type.String(), Type.Null()], { description: "the caller's file" }),
  line: Type.Union([Type.Integer(), Type.Null()]),
  confidence: Type.Number(),
  external: Type.Boolean({
    description: 'the callee is outside the repository (or unresolved); not followed',
  }),
  repeat: Type.Boolean({ description: 'the callee was already expanded earlier (shared callee or a cycle)' }),
});

export const graphTraceTool = defineTool({
  name: 'cos_graph_trace',
  title: 'Call steps from an entry point',
  description:
    'What runs when an entry point runs: calls followed breadth-first, each step with caller, callee, file and line.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      entry: NodeRefInput('a function, method or file'),
      max_depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, default: 5 })),
      max_steps: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, default: 300 })),
      include_external: Type.Optional(Type.Boolean({ default: true })),
    },
    { additionalProperties: false },
  ),
  output: orAmbiguous(
    Type.Object({
      entry: NodeSchema,
      steps: Type.Array(StepSchema),
      branches: Type.Array(
        Type.Object({
          uid: Type.String(),
          label: Type.String(),
          fan_out: Type.Integer(),
          depth: Type.Integer(),
        }),
      ),
      external_targets: Type.Array(
        Type.Object({
          uid: Type.String(),
          label: Type.String(),
          calls: Type.Integer(),
          unresolved: Type.Boolean(),
        }),
      ),
      reached: Type.Integer({ description: 'distinct in-repo symbols reached' }),
      max_depth_reached: Type.Integer(),
    }),
  ),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/trace' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const res = resolveArg(ctx, call, input.entry, 'entry point');
    if ('ambiguous' in res) return { ...res.ambiguous, meta: call.meta };
    const { r } = call;
    const maxDepth = input.max_depth ?? 5;
    const maxSteps = input.max_steps ?? 300;
    const includeExternal = input.include_external ?? true;
    const steps = [];
    const branches = [];
    const externals = new Map<string, { uid: string; label: string; calls: number; unresolved: boolean }>();
    const expanded = new Set<number>([res.node.id]);
    let frontier = [res.node];
    let capped = false;
    let deepest = 0;
    for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
      const next = [];
      for (const caller of frontier) {
        // What runs when a function runs includes its nested functions (a callback it passes on, a
        // handler it installs), which are callers of their own: their calls are followed with its.
        const sources = NESTING.has(caller.kind) ? withMembers(r, caller) : [caller.id];
        for (const id of sources) expanded.add(id);
        const edges = sources
          .flatMap((id) => r.out(id, FOLLOW))
          .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
        const callees = new Set<number>();
        for (const e of edges) {
          const from = e.source_id === caller.id ? caller : r.nodeById(e.source_id);
          if (!from) continue;
          const callee = r.nodeById(e.other);
          if (!callee) continue;
          callees.add(callee.id);
          const external = callee.kind === 'external' || callee.kind === 'dependency';
          if (external) {
            const x = externals.get(callee.uid) ?? {
              uid: callee.uid,
              label: callee.label,
              calls: 0,
              unresolved: callee.uid.startsWith(`code:external:${UNRESOLVED_MODULE}::`),
            };
            x.calls++;
            externals.set(callee.uid, x);
            if (!includeExternal) continue;
          }
          const repeat = !external && expanded.has(callee.id);
          if (steps.length >= maxSteps) {
            capped = true;
            continue;
          }
          steps.push({
            depth,
            from: from.uid,
            to: callee.uid,
            to_label: callee.label,
            to_kind: callee.kind,
            edge_type: e.edge_type,
            file_path: from.file_path,
            line: e.line,
            confidence: e.confidence,
            external,
            repeat,
          });
          deepest = Math.max(deepest, depth);
          if (!external && !repeat) {
            expanded.add(callee.id);
            next.push(callee);
          }
        }
        if (callees.size > 1)
          branches.push({ uid: caller.uid, label: caller.label, fan_out: callees.size, depth: depth - 1 });
      }
      frontier = next;
    }
    const unresolved = [...externals.values()].some((x) => x.unresolved);
    return {
      entry: nodeOut(res.node),
      steps,
      branches,
      external_targets: [...externals.values()].sort((a, b) => b.calls - a.calls),
      reached: expanded.size - 1,
      max_depth_reached: deepest,
      meta: {
        ...call.meta,
        resolved_from: res.from,
        completeness: capped || unresolved ? 'lower_bound' : 'exact',
        ...(capped ? { steps_capped: true } : {}),
      },
    };
  },
});
