// Pure changes to the loaded board, so a drag can move a card at once and snap it back exactly when the
// hub refuses.
import type { BoardBody, Card, Status } from './api.ts';

const rank = (card: Card) =>
  Number(card.priority.slice(1)) * 1e10 + (Number(card.id.replace(/\D/g, '')) || 0);

/** Index at which the server's order (priority, then id) would place the card. */
function slotFor(cards: Card[], card: Card): number {
  const r = rank(card);
  const at = cards.findIndex((c) => rank(c) > r);
  return at === -1 ? cards.length : at;
}

export function findCard(
  body: BoardBody,
  id: string,
): { card: Card; status: Status; index: number } | undefined {
  for (const column of body.data.columns) {
    const index = column.cards.findIndex((c) => c.id === id);
    const card = column.cards[index];
    if (card) return { card, status: column.status, index };
  }
  return undefined;
}

/** Removes the card wherever it is, then places `card` (with its new status) in its column. */
export function placeCard(body: BoardBody, card: Card, index?: number): BoardBody {
  const found = findCard(body, card.id);
  const columns = body.data.columns.map((column) => {
    let cards = column.cards;
    let count = column.count;
    if (found && found.status === column.status) {
      cards = cards.filter((c) => c.id !== card.id);
      count -= 1;
    }
    if (column.status === card.status) {
      cards = [...cards];
      cards.splice(index ?? slotFor(cards, card), 0, card);
      count += 1;
    }
    if (cards === column.cards) return column;
    return { ...column, cards, count, over_cap: column.cap !== null && count > column.cap };
  });
  return { ...body, data: { ...body.data, columns, total: body.data.total + (found ? 0 : 1) } };
}

/** Appends a column's next page (deduplicated: a card may have moved in meanwhile). */
export function appendPage(body: BoardBody, status: Status, page: BoardBody): BoardBody {
  const next = page.data.columns.find((c) => c.status === status);
  if (!next) return body;
  const columns = body.data.columns.map((column) => {
    if (column.status !== status) return column;
    const seen = new Set(column.cards.map((c) => c.id));
    return {
      ...column,
      cards: [...column.cards, ...next.cards.filter((c) => !seen.has(c.id))],
      next_cursor: next.next_cursor,
    };
  });
  return { ...body, data: { ...body.data, columns } };
}

export function removeCard(body: BoardBody, id: string): BoardBody {
  const found = findCard(body, id);
  if (!found) return body;
  const columns = body.data.columns.map((column) => {
    if (column.status !== found.status) return column;
    const count = column.count - 1;
    return {
      ...column,
      cards: column.cards.filter((c) => c.id !== id),
      count,
      over_cap: column.cap !== null && count > column.cap,
    };
  });
  return { ...body, data: { ...body.data, columns, total: body.data.total - 1 } };
}
