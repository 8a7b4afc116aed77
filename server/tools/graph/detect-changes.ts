import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import {
  type ChangedFile,
  changedFiles,
  GitError,
  REF_PATTERN,
  symbolsForChange,
  tasksReferencing,
} from '../../graph/queries/changes.ts';
import { walk } from '../../graph/queries/traverse.ts';
import { defineTool } from '../define.ts';
import { completenessOf, graphCall, quoteInput, TOOL_READ_ONLY } from './common.ts';
import { type Impacted, ImpactedSchema, impactedOut, tierOf } from './impact.ts';

/** Files whose change moves resolution or the build for the whole project. */
const PROJECT_FILE =
  /(^|\/)(package\.json|package-lock\.json|go\.mod|go\.sum|Cargo\.toml|pyproject\.toml|requirements[^/]*\.txt|[tj]sconfig[^/]*\.json)$/;

const GIT_TIMEOUT_MS = 15_000;

export const graphDetectChangesTool = defineTool({
  name: 'cos_graph_detect_changes',
  title: 'What the current changes touch',
  description:
    'The git working tree against HEAD (staged, unstaged and untracked), or a commit range (`base`, optional `head`), mapped to the changed symbols, their downstream consumers (who depends on them, to `depth` hops, in impact tiers) and the board tasks whose references name those files, with a risk level and its reasons. Reads git only; changes nothing.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      base: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          pattern: REF_PATTERN.source,
          description:
            'a commit or ref to compare with (or a range a..b); omitted = the working tree against HEAD',
        }),
      ),
      head: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          pattern: REF_PATTERN.source,
          description: 'the other end of the range (default: the working tree)',
        }),
      ),
      depth: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 5, description: 'hops of consumers (default 2)' }),
      ),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 2000, description: 'entries per list (default 200)' }),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    mode: Type.Union([Type.Literal('working_tree'), Type.Literal('range')]),
    base: Type.Union([Type.String(), Type.Null()]),
    head: Type.Union([Type.String(), Type.Null()]),
    changes: Type.Object({
      files: Type.Array(
        Type.Object({
          path: Type.String(),
          status: Type.String({ description: 'added | modified | deleted' }),
          lines_changed: Type.Integer(),
          indexed: Type.Boolean({ description: 'the graph knows this file' }),
        }),
      ),
      symbols: Type.Array(
        Type.Object({
          uid: Type.String(),
          kind: Type.String(),
          label: Type.String(),
          file_path: Type.Union([Type.String(), Type.Null()]),
          start_line: Type.Union([Type.Integer(), Type.Null()]),
          file_level: Type.Boolean({ description: 'the change touched the file outside any symbol' }),
        }),
      ),
    }),
    affected: Type.Object({
      consumers: Type.Array(Type.Intersect([ImpactedSchema, Type.Object({ tier: Type.String() })])),
      tasks: Type.Array(
        Type.Object({
          id: Type.String(),
          title: Type.String(),
          status: Type.String(),
          matched: Type.Array(Type.String()),
        }),
      ),
    }),
    summary: Type.Object({
      files: Type.Integer(),
      symbols: Type.Integer(),
      consumers: Type.Integer(),
      will_break: Type.Integer(),
      tasks: Type.Integer(),
    }),
    risk_level: Type.Union([
      Type.Literal('none'),
      Type.Literal('low'),
      Type.Literal('medium'),
      Type.Literal('high'),
    ]),
    risk_reasons: Type.Array(Type.String()),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/changes' },
  handler: async (ctx, input) => {
    if (input.head && !input.base)
      throw new ToolError('validation', 'head needs a base: pass base (and head) for a range');
    const call = graphCall(ctx);
    const { r } = call;
    let files: ChangedFile[];
    try {
      files = await changedFiles(ctx.config.repo, {
        ...(input.base ? { base: input.base } : {}),
        ...(input.head ? { head: input.head } : {}),
        timeoutMs: GIT_TIMEOUT_MS,
        signal: ctx.signal,
      });
    } catch (err) {
      if (!(err instanceof GitError)) throw err;
      // A git failure on caller-given revisions is about those revisions, whatever git's wording.
      const category =
        err.reason === 'bad_ref' || (err.reason === 'failed' && input.base)
          ? 'validation'
          : err.reason === 'timeout'
            ? 'transient'
            : err.reason === 'failed'
              ? 'internal'
              : 'unavailable';
      // git's own words can name the repository's absolute path: say what failed in ours.
      const message =
        category === 'validation'
          ? `git cannot read ${[input.base, input.head]
              .filter((r) => r !== undefined)
              .map((r) => quoteInput(r!))
              .join(' or ')}: pass a commit, branch or tag of this repository (or a range a..b)`
          : err.reason === 'failed'
            ? 'git failed to list the changes; the hub log has its message'
            : err.message;
      if (err.reason === 'failed') ctx.logger.warn({ err }, 'git diff failed');
      throw new ToolError(category, `cos_graph_detect_changes: ${message}`);
    }
    const limit = input.limit ?? 200;
    const depth = input.depth ?? 2;
    const symbols = [];
    const seeds: number[] = [];
    const changedUids: string[] = [];
    let lowerBound = false;
    for (const f of files) {
      for (const { node, fileLevel } of symbolsForChange(r, f)) {
        seeds.push(node.id);
        changedUids.push(node.uid);
        if (completenessOf(r, node).completeness === 'lower_bound') lowerBound = true;
        symbols.push({
          uid: node.uid,
          kind: node.kind,
          label: node.label,
          file_path: node.file_path,
          start_line: node.start_line,
          file_level: fileLevel,
        });
      }
    }
    const { reached, capped } = walk(r, seeds, { direction: 'upstream', depth });
    const consumers: (Impacted & { tier: string })[] = [];
    let willBreak = 0;
    for (const reach of reached.values()) {
      const item = impactedOut(r, reach);
      if (!item) continue;
      const tier = tierOf(reach, item.kind);
      if (tier === 'will_break') willBreak++;
      consumers.push({ ...item, tier });
    }
    const rank = { will_break: 0, should_review: 1, context: 2 } as Record<string, number>;
    consumers.sort(
      (a, b) => (rank[a.tier] ?? 3) - (rank[b.tier] ?? 3) || a.depth - b.depth || a.uid.localeCompare(b.uid),
    );
    const paths = files.map((f) => f.path);
    const { available: board, tasks } = tasksReferencing(ctx.db, paths, changedUids);

    const reasons: string[] = [];
    let risk: 'none' | 'low' | 'medium' | 'high' = files.length === 0 ? 'none' : 'low';
    const order = { none: 0, low: 1, medium: 2, high: 3 } as const;
    const raise = (to: 'medium' | 'high', why: string) => {
      reasons.push(why);
      if (order[to] > order[risk]) risk = to;
    };
    const project = paths.filter((p) => PROJECT_FILE.test(p));
    if (project.length > 0) raise('high', `project configuration changed: ${project.slice(0, 5).join(', ')}`);
    if (willBreak >= 10) raise('high', `${willBreak} direct dependents may break`);
    else if (willBreak > 0) raise('medium', `${willBreak} direct dependent(s) may break`);
    const imported = (path: string) => {
      const n = r.node(`code:file:${path}`);
      return n !== undefined && r.in(n.id, new Set(['imports'])).length > 0;
    };
    const deletedUsed = files.filter((f) => f.status === 'deleted' && imported(f.path));
    if (deletedUsed.length > 0)
      raise(
        'high',
        `deleted file(s) still imported: ${deletedUsed
          .map((f) => f.path)
          .slice(0, 5)
          .join(', ')}`,
      );
    if (consumers.length > 0 && willBreak === 0)
      raise('medium', `${consumers.length} consumer(s) within ${depth} hops`);
    const active = tasks.filter((t) => t.status !== 'done' && t.status !== 'archived');
    if (active.length > 0) raise('medium', `${active.length} open task(s) reference the changed files`);
    if (lowerBound)
      reasons.push('some changed symbols are also called by name only: consumers are a lower bound');
    if (files.length > 0 && reasons.length === 0)
      reasons.push('no indexed code depends on the changed lines');

    const indexed = (p: string) =>
      r.node(`code:file:${p}`) !== undefined || r.node(`doc:file:${p}`) !== undefined;
    return {
      mode: input.base ? ('range' as const) : ('working_tree' as const),
      base: input.base ?? null,
      head: input.head ?? null,
      changes: {
        files: files.slice(0, limit).map((f) => ({
          path: f.path,
          status: f.status,
          lines_changed: f.lines_changed,
          indexed: indexed(f.path),
        })),
        symbols: symbols.slice(0, limit),
      },
      affected: { consumers: consumers.slice(0, limit), tasks: tasks.slice(0, limit) },
      summary: {
        files: files.length,
        symbols: symbols.length,
        consumers: consumers.length,
        will_break: willBreak,
        tasks: tasks.length,
      },
      risk_level: risk,
      risk_reasons: reasons,
      meta: {
        ...call.meta,
        semantic_scope: `transitive_depth_${depth}`,
        completeness: lowerBound || capped ? 'lower_bound' : 'exact',
        tasks_board: board ? 'present' : 'absent',
      },
    };
  },
});
