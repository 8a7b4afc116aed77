// cos_task_board: the board's columns with counts and a page of cards each. Over MCP the answer must fit
// the agent's 32 KB budget, and the generic trimmer cutting cards out of the middle would break the
// cursors; so the page is fitted here first, by holding back cards from the end of the fullest columns
// and pointing their next_cursor at the first card held back. Walking every next_cursor still reaches
// every card.
import { type Static, Type } from '@sinclair/typebox';
import { budgetSize } from '../../../shared/envelope/index.ts';
import { combinedCursor, encodeCursor } from '../../board/cursor.ts';
import { parseTaskId, priorityRank } from '../../board/model.ts';
import type { BoardPage } from '../../board/reads.ts';
import { defineTool } from '../define.ts';
import { boardOf, CardSchema, KindSchema, LimitSchema, StatusSchema, WipColumnSchema } from './schemas.ts';

export const BoardInputSchema = Type.Object(
  {
    status: Type.Optional(StatusSchema),
    kind: Type.Optional(KindSchema),
    swimlane: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    epic: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    include_archive: Type.Optional(Type.Boolean({ default: false })),
    limit: Type.Optional(LimitSchema(20, 'per column')),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: "meta.next_cursor, or a column's for that column",
      }),
    ),
  },
  { additionalProperties: false },
);

export const BoardOutputSchema = Type.Object({
  columns: Type.Array(
    Type.Object({
      status: StatusSchema,
      count: Type.Integer({ description: 'Cards in the column matching the filters, all pages' }),
      cap: Type.Union([Type.Integer(), Type.Null()], {
        description: 'WIP cap, null when the column has none',
      }),
      over_cap: Type.Boolean(),
      cards: Type.Array(CardSchema),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Next page of this column, null at the end',
      }),
    }),
  ),
  total: Type.Integer({ description: 'Cards matching the filters on the whole board' }),
  wip: Type.Array(WipColumnSchema),
});

/** The agent budget (32,000) less room for the envelope's own keys. */
export const BOARD_BUDGET_CHARS = 30_000;
const MAX_BUDGETED_PAGE = 60;

const size = (value: unknown): number => budgetSize(JSON.stringify(value));

/**
 * Holds back cards from the end of the fullest columns until the page fits; returns how many. A column
 * keeps at least one card, so its cursor can always point after a card this page showed.
 */
export function fitBoardPage(page: BoardPage, budget: number): number {
  let heldBack = 0;
  let over = size(page) - budget;
  while (over > 0) {
    const column = page.columns.reduce((a, b) => (b.cards.length > a.cards.length ? b : a));
    if (column.cards.length <= 1) break;
    const card = column.cards.pop();
    if (card === undefined) break;
    heldBack++;
    over -= size(card) + 1;
    const last = column.cards[column.cards.length - 1];
    if (last)
      column.next_cursor = encodeCursor({
        [column.status]: { rank: priorityRank(last.priority), id: parseTaskId(last.id) ?? 0 },
      });
    if (over <= 0) over = size(page) - budget;
  }
  if (heldBack > 0) page.next_cursor = combinedCursor(page.columns);
  return heldBack;
}

export const taskBoardTool = defineTool({
  name: 'cos_task_board',
  title: 'Task board',
  description:
    'The board: each column with its count, WIP cap and a page of cards, best first. meta.next_cursor pages on.',
  module: 'tasks',
  layer: 'tasks',
  input: BoardInputSchema,
  output: BoardOutputSchema,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/board/list', operationId: 'boardList' },
  handler(ctx, input) {
    const budgeted = ctx.caller.transport !== 'rest';
    // Under the agent budget no page can show more than about this many cards per column (a card is
    // 150+ chars); fetching 500 per column only to hold most of them back would be wasted work.
    const limit = budgeted ? Math.min(input.limit ?? 20, MAX_BUDGETED_PAGE) : input.limit;
    const page = boardOf(ctx).board({ ...input, limit });
    const meta: Record<string, unknown> = {
      wip_violations: page.wip
        .filter((w) => w.over_cap)
        .map((w) => ({ status: w.status, count: w.count, cap: w.cap })),
      parse_errors: budgeted ? page.parse_errors.slice(0, 10) : page.parse_errors,
      parse_error_count: page.parse_error_count,
    };
    // REST (the browser) has no agent budget: it gets every card it asked for.
    const heldBack = budgeted ? fitBoardPage(page, BOARD_BUDGET_CHARS - size(meta) - 1200) : 0;
    meta.next_cursor = page.next_cursor;
    if (heldBack > 0) {
      meta.cards_held_back = heldBack;
      meta.held_back_reason = 'page fitted to the agent budget; follow next_cursor for the rest';
    }
    const result: Static<typeof BoardOutputSchema> & { meta: Record<string, unknown> } = {
      columns: page.columns,
      total: page.total,
      wip: page.wip,
      meta,
    };
    return result;
  },
});
