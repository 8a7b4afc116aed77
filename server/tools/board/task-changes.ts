import { Type } from '@sinclair/typebox';
import { EMPTY_TREE } from '../../git/run.ts';
import type { DiffResult, GitService } from '../../git/service.ts';
import type { LinkedCommit } from '../../git/task-links.ts';
import { defineTool } from '../define.ts';
import { ChangeReportFields, changeReport, counted, gitToolError } from '../graph/change-report.ts';
import { graphCall, OffsetInput } from '../graph/common.ts';
import { RefInput } from '../graph/detect-changes.ts';
import { CommitSchema, commitOut } from './commits.ts';
import { boardOf, TaskIdSchema } from './schemas.ts';

export const taskChangesTool = defineTool({
  name: 'cos_task_changes',
  title: "A task's whole change",
  description:
    'What a task changed (its branch against the base, else its linked commits): files, changed symbols, their impact, covering tests, risk.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      id: TaskIdSchema,
      base: Type.Optional(RefInput('default origin/HEAD, main or master')),
      depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 2 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 200 })),
      offset: OffsetInput,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    task_id: Type.String(),
    mode: Type.Union([Type.Literal('branch'), Type.Literal('commits'), Type.Literal('none')]),
    base: Type.Union([Type.String(), Type.Null()]),
    head: Type.Union([Type.String(), Type.Null()]),
    commits: Type.Array(CommitSchema),
    commits_total: Type.Integer({ description: 'all linked commits; commits pages like the other lists' }),
    branches: Type.Array(Type.String()),
    ...ChangeReportFields,
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/tasks/:id/changes', operationId: 'boardTaskChanges' },
  handler: async (ctx, input) => {
    const board = boardOf(ctx);
    const key = board.show(input.id).id;
    const limit = input.limit ?? 200;
    const offset = input.offset ?? 0;
    const git = ctx.services.git;
    const call = graphCall(ctx);
    const call0 = { signal: ctx.signal };
    let diff: DiffResult = { files: [], truncated: false };
    let mode: 'branch' | 'commits' | 'none' = 'none';
    let base: string | null = null;
    let head: string | null = null;
    let headRev: string | null = null;
    let linked: LinkedCommit[] = [];
    let branchNames: string[] = [];
    const reasons: string[] = [];
    try {
      const links = await git.taskCommits(key, board.keys.resolve, { ...call0, base: input.base });
      linked = links.commits;
      branchNames = links.branches.map((b) => b.name);
      base = links.base;
      const shas = new Set(linked.filter((c) => c.link === 'branch').map((c) => c.sha));
      // A branch whose tip is not on the base still holds work: that is the change (as a PR shows it).
      const open = links.branches.find((b) => shas.has(b.sha) && b.name !== links.base);
      if (open && links.base) {
        mode = 'branch';
        head = open.name;
        headRev = open.sha;
        diff = await git.diff({ base: `${links.base}...${open.sha}`, lines: true, ...call0 });
      } else if (linked.length > 0) {
        mode = 'commits';
        const range = await commitRange(git, linked, call0);
        base = range.from === EMPTY_TREE ? null : range.from;
        head = range.to;
        headRev = range.to;
        const paths = [
          ...new Set(linked.flatMap((c) => c.files.flatMap((f) => [f.path, f.old_path ?? f.path]))),
        ];
        diff = await git.diff({ base: range.from, head: range.to, lines: true, paths, ...call0 });
        const between = await git.log(
          [`${range.from === EMPTY_TREE ? range.to : `${range.from}..${range.to}`}`],
          {
            ...call0,
            maxCount: 1000,
          },
        );
        const mine = new Set(linked.map((c) => c.sha));
        const touched = new Set(paths);
        const foreign = between.commits.filter(
          (c) => !mine.has(c.sha) && c.files.some((f) => touched.has(f.path)),
        );
        if (foreign.length > 0)
          reasons.push(
            `the change includes ${counted(foreign.length, 'commit')} not linked to ${key} that ${foreign.length === 1 ? 'touches' : 'touch'} the same files (${foreign
              .slice(0, 3)
              .map((c) => c.sha.slice(0, 10))
              .join(', ')})`,
          );
      }
      if (links.capped) reasons.push(`only the newest ${links.scanned} commits were searched for ${key}`);
    } catch (err) {
      gitToolError(ctx, 'cos_task_changes', err, [input.base]);
    }
    let approximate: Set<string> | undefined;
    if (headRev !== null && diff.files.length > 0) {
      try {
        approximate = await git.differsFromWorkingTree(headRev, call0);
      } catch (err) {
        gitToolError(ctx, 'cos_task_changes', err, []);
      }
    }
    const report = changeReport(ctx, call, diff, {
      depth: input.depth ?? 2,
      limit,
      offset,
      hunks: true,
      ...(approximate ? { approximate } : {}),
    });
    if (mode === 'none')
      report.risk_reasons.push(
        `no commit names ${key} (in its message, a trailer like "Task: ${key}", or a branch task/${key}-…)`,
      );
    return {
      task_id: key,
      mode,
      base,
      head,
      // Paged by the same offset and limit as the report's lists, so one next_offset serves them all.
      commits: linked.slice(offset, offset + limit).map(commitOut),
      commits_total: linked.length,
      branches: branchNames,
      ...report,
      risk_reasons: [...report.risk_reasons, ...reasons],
      meta: {
        ...report.meta,
        next_offset: report.meta.next_offset ?? (linked.length > offset + limit ? offset + limit : null),
      },
    };
  },
});

/**
 * The two trees a task's commits lie between. A linked merge that brought the others in is the whole
 * change against its first parent; otherwise from the parent of the oldest commit to the newest.
 */
async function commitRange(
  git: GitService,
  commits: LinkedCommit[],
  call: { signal: AbortSignal },
): Promise<{ from: string; to: string }> {
  const newest = commits[0]!;
  const first = newest.parents[0];
  if (newest.parents.length > 1 && first) {
    const brought = await git.log([`${first}..${newest.sha}`], { ...call, maxCount: 2000 });
    const shas = new Set(brought.commits.map((c) => c.sha));
    if (commits.every((c) => shas.has(c.sha))) return { from: first, to: newest.sha };
  }
  const oldest = commits[commits.length - 1]!;
  return { from: oldest.parents[0] ?? EMPTY_TREE, to: newest.sha };
}
