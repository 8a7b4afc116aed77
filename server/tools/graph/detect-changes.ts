import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { REF_PATTERN } from '../../git/run.ts';
import type { DiffResult } from '../../git/service.ts';
import { defineTool } from '../define.ts';
import { ChangeReportFields, changeReport, gitToolError } from './change-report.ts';
import { graphCall, OffsetInput, TOOL_READ_ONLY } from './common.ts';

export const RefInput = (description: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: REF_PATTERN.source, description });

export const graphDetectChangesTool = defineTool({
  name: 'cos_graph_detect_changes',
  title: 'What the current changes touch',
  description:
    "Maps the working tree's changes (or a commit range) to changed symbols, their consumers, covering tests and the tasks naming the files, with a risk.",
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      base: Type.Optional(RefInput('a commit or range a..b; default the working tree against HEAD')),
      head: Type.Optional(RefInput('default the working tree')),
      depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 2 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000, default: 200 })),
      offset: OffsetInput,
      hunks: Type.Optional(Type.Boolean({ default: false, description: "each file's hunks" })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    mode: Type.Union([Type.Literal('working_tree'), Type.Literal('range')]),
    base: Type.Union([Type.String(), Type.Null()]),
    head: Type.Union([Type.String(), Type.Null()]),
    ...ChangeReportFields,
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/changes' },
  handler: async (ctx, input) => {
    if (input.head && !input.base)
      throw new ToolError('validation', 'head needs a base: pass base (and head) for a range');
    const call = graphCall(ctx);
    const git = ctx.services.git;
    let diff: DiffResult;
    let approximate: Set<string> | undefined;
    try {
      diff = await git.diff({
        base: input.base,
        head: input.head,
        lines: input.hunks ?? false,
        signal: ctx.signal,
      });
      // The graph is the working tree's: a range ending elsewhere locates its symbols by line only roughly.
      if (input.head && diff.files.length > 0)
        approximate = await git.differsFromWorkingTree(input.head, { signal: ctx.signal });
    } catch (err) {
      gitToolError(ctx, 'cos_graph_detect_changes', err, [input.base, input.head]);
    }
    const report = changeReport(ctx, call, diff, {
      depth: input.depth ?? 2,
      limit: input.limit ?? 200,
      offset: input.offset ?? 0,
      hunks: input.hunks ?? false,
      ...(approximate ? { approximate } : {}),
    });
    return {
      mode: input.base ? ('range' as const) : ('working_tree' as const),
      base: input.base ?? null,
      head: input.head ?? null,
      ...report,
    };
  },
});
