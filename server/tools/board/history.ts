import { type Static, Type } from '@sinclair/typebox';
import { GitError } from '../../git/run.ts';
import type { LinkedCommit } from '../../git/task-links.ts';
import { defineTool } from '../define.ts';
import { commitOut } from './commits.ts';
import { boardOf, itemsWithinBudget, LimitSchema, stringEnum, TaskIdSchema } from './schemas.ts';

const HistoryEventSchema = Type.Object({
  seq: Type.Integer({ description: 'a commit event has the seq of the event before it' }),
  at: Type.String(),
  type: stringEnum(['created', 'status', 'edit', 'work_log', 'file', 'deleted', 'commit'] as const),
  from_status: Type.Union([Type.String(), Type.Null()]),
  to_status: Type.Union([Type.String(), Type.Null()]),
  agent_session: Type.Union([Type.String(), Type.Null()]),
  source: stringEnum(['file', 'api', 'mcp', 'git'] as const),
  reason: Type.Union([Type.String(), Type.Null()]),
  version: Type.Union([Type.Integer(), Type.Null()]),
  detail: Type.Unknown(),
});
type HistoryEvent = Static<typeof HistoryEventSchema>;

export const taskHistoryTool = defineTool({
  name: 'cos_task_history',
  title: 'Task history',
  description:
    'What happened to a task, oldest first: moves with reasons, edits, work-log entries, changes by hand or git; include_commits adds commits.',
  module: 'tasks',
  layer: 'tasks',
  input: Type.Object(
    {
      id: TaskIdSchema,
      after_seq: Type.Optional(
        Type.Integer({ minimum: 0, description: 'next_after_seq of the previous page' }),
      ),
      limit: Type.Optional(LimitSchema(100)),
      include_commits: Type.Optional(
        Type.Boolean({ description: 'also commits naming it or on its branch' }),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    task_id: Type.String(),
    events: Type.Array(HistoryEventSchema),
    next_after_seq: Type.Union([Type.Integer(), Type.Null()]),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/tasks/:id/history', operationId: 'boardTaskHistory' },
  async handler(ctx, input) {
    const board = boardOf(ctx);
    const found = board.history(input.id, input);
    const history: { task_id: string; events: HistoryEvent[]; next_after_seq: number | null } = found;
    let gitNote: Record<string, string> = {};
    if (input.include_commits) {
      let commits: LinkedCommit[] = [];
      try {
        const git = (ctx.services as Partial<typeof ctx.services>).git;
        if (!git) throw new GitError('missing', 'this hub reads no git repository');
        commits = (await git.taskCommits(history.task_id, board.keys.resolve, { signal: ctx.signal }))
          .commits;
      } catch (err) {
        // The board's own history stands without git (no repository, no git, a slow one): say why.
        if (!(err instanceof GitError)) throw err;
        gitNote = {
          commits_unavailable: err.reason === 'failed' ? 'git failed to read the history' : err.message,
        };
      }
      history.events = withCommits(history.events, commits, {
        after: input.after_seq ?? 0,
        last: history.next_after_seq === null,
        // Every event's time, so each commit sits after the event it followed on whichever page that is.
        timeline: allEventTimes(board, history.task_id),
      });
    }
    const keep = itemsWithinBudget(ctx, history.events, { ...history, events: [] });
    if (keep === history.events.length) return { ...history, meta: gitNote };
    const events = history.events.slice(0, keep);
    return {
      ...history,
      events,
      next_after_seq: events[events.length - 1]?.seq ?? null,
      meta: { ...gitNote, events_held_back: history.events.length - keep },
    };
  },
});

function allEventTimes(board: ReturnType<typeof boardOf>, id: string): { seq: number; at: string }[] {
  const out: { seq: number; at: string }[] = [];
  let after = 0;
  for (;;) {
    const page = board.history(id, { after_seq: after, limit: 500 });
    for (const e of page.events) out.push({ seq: e.seq, at: e.at });
    if (page.next_after_seq === null) return out;
    after = page.next_after_seq;
  }
}

/**
 * The page's events with the commits that fall on it, in time order. A commit carries the seq of the
 * last event before it (0 before any), and belongs to the page that holds that event's successor, so
 * paging with after_seq shows each commit once.
 */
export function withCommits(
  events: HistoryEvent[],
  commits: LinkedCommit[],
  page: { after: number; last: boolean; timeline: { seq: number; at: string }[] },
): HistoryEvent[] {
  const lastSeq = events[events.length - 1]?.seq ?? page.after;
  const keyed = events.map((e) => ({ e, anchor: e.seq, commit: 0 }));
  for (const c of commits) {
    const at = new Date(c.time).toISOString();
    let anchor = 0;
    for (const e of page.timeline) if (e.at <= at) anchor = e.seq;
    if (anchor < page.after || (anchor >= lastSeq && !page.last && events.length > 0)) continue;
    const { sha, author, subject, files, files_total, link } = commitOut(c);
    keyed.push({
      anchor,
      commit: 1,
      e: {
        seq: anchor,
        at,
        type: 'commit',
        from_status: null,
        to_status: null,
        agent_session: null,
        source: 'git',
        reason: null,
        version: null,
        detail: { sha, author, subject, link, files, files_total },
      },
    });
  }
  // Board events keep their seq order; a commit follows the event it came after, commits by time.
  keyed.sort((a, b) => a.anchor - b.anchor || a.commit - b.commit || a.e.at.localeCompare(b.e.at));
  return keyed.map((k) => k.e);
}
