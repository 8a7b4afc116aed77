// Board cursors: where each column's next page starts. Opaque to callers (base64url JSON), checked on the
// way back in so a forged or stale cursor is a validation error, not a query on garbage.
import { ToolError } from '../errors.ts';
import { STATUSES, type Status } from './model.ts';

export interface CursorPosition {
  rank: number;
  id: number;
}

/**
 * A cursor maps columns to the last card already seen in each (priority rank, id). One column's
 * next_cursor names that column; the board's meta.next_cursor names every column with more cards, so
 * following it alone walks the whole board.
 */
export function encodeCursor(positions: Partial<Record<Status, CursorPosition>>): string {
  const compact: Record<string, [number, number]> = {};
  for (const [status, p] of Object.entries(positions) as [Status, CursorPosition][])
    compact[status] = [p.rank, p.id];
  return Buffer.from(JSON.stringify(compact)).toString('base64url');
}

export function decodeCursor(cursor: string): Map<Status, CursorPosition> {
  const bad = new ToolError(
    'validation',
    'cursor is not one this board issued; pass a next_cursor from a previous page (with the same filters)',
  );
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad;
  const out = new Map<Status, CursorPosition>();
  for (const [status, pos] of Object.entries(v)) {
    if (!(STATUSES as readonly string[]).includes(status)) throw bad;
    if (!Array.isArray(pos) || pos.length !== 2 || !pos.every((x) => Number.isInteger(x))) throw bad;
    out.set(status as Status, { rank: pos[0] as number, id: pos[1] as number });
  }
  if (out.size === 0) throw bad;
  return out;
}

/** One cursor for every column that has more cards. */
export function combinedCursor(columns: readonly { next_cursor: string | null }[]): string | null {
  const positions: Partial<Record<Status, CursorPosition>> = {};
  for (const c of columns) {
    if (c.next_cursor === null) continue;
    for (const [status, pos] of decodeCursor(c.next_cursor)) positions[status] = pos;
  }
  return Object.keys(positions).length === 0 ? null : encodeCursor(positions);
}
