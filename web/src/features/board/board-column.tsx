// One column, virtualised: only the cards in view are in the DOM, so a 5,000-task board stays smooth.
// Scrolling near the end fetches the column's next page when the hub says there is one.
import { useVirtualizer } from '@tanstack/react-virtual';
import { type DragEvent, useEffect, useRef, useState } from 'react';
import type { CostGroup } from '../../components/costs/api.ts';
import { type Card, type Column, STATUS_LABEL, type Status } from './api.ts';
import { TaskCard } from './task-card.tsx';

interface Props {
  column: Column;
  cards: Card[];
  selectedId: string | undefined;
  dragging: Card | undefined;
  /** Whether the board's transitions allow the dragged card here (a hint; the hub decides). */
  allowed: boolean;
  loadingMore: boolean;
  /** What each task cost so far (cos_cost_report by task), when the hub has recorded any. */
  costs?: ReadonlyMap<string, CostGroup> | undefined;
  onOpen: (id: string) => void;
  onDragStart: (card: Card) => void;
  onDragEnd: () => void;
  onDrop: (to: Status) => void;
  onMore: (status: Status) => void;
}

export function BoardColumn(props: Props) {
  const { column, cards, dragging, allowed } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [over, setOver] = useState(false);
  const virtualizer = useVirtualizer({
    count: cards.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 92,
    overscan: 6,
    getItemKey: (index) => cards[index]?.id ?? index,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;
  const { onMore, loadingMore } = props;

  useEffect(() => {
    if (column.next_cursor && !loadingMore && lastIndex >= cards.length - 10) onMore(column.status);
  }, [column.next_cursor, column.status, loadingMore, lastIndex, cards.length, onMore]);

  const isSource = dragging?.status === column.status;
  const dragOver = (event: DragEvent) => {
    if (!dragging || isSource) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    if (!over) setOver(true);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    if (dragging && !isSource) props.onDrop(column.status);
  };

  const label = STATUS_LABEL[column.status];
  const headingId = `col-${column.status}`;
  return (
    <section
      className={`board-column${dragging && !isSource ? (allowed ? ' drop-allowed' : ' drop-refused') : ''}${over ? ' drop-over' : ''}`}
      aria-labelledby={headingId}
      data-status={column.status}
      onDragOver={dragOver}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <header className="column-header">
        <h2 id={headingId}>{label}</h2>
        <span className="count" title="cards in this column">
          {column.count}
          {column.cap !== null ? ` / ${column.cap}` : ''}
        </span>
        {column.over_cap ? (
          <span className="badge badge-warn">
            <span aria-hidden="true">!</span> over WIP cap
          </span>
        ) : null}
      </header>
      {dragging && !isSource ? (
        <p className="drop-hint">{allowed ? 'Drop to move here' : 'The board may refuse this move'}</p>
      ) : null}
      <div className="column-scroll" ref={scroller}>
        {cards.length === 0 ? <p className="muted empty">No cards</p> : null}
        <ul
          className="card-list"
          aria-label={`${label} cards`}
          style={{ height: virtualizer.getTotalSize() }}
        >
          {items.map((item) => {
            const card = cards[item.index];
            if (!card) return null;
            return (
              <li
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="card-slot"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <TaskCard
                  card={card}
                  selected={props.selectedId === card.id}
                  cost={props.costs?.get(card.id)}
                  onOpen={props.onOpen}
                  onDragStart={props.onDragStart}
                  onDragEnd={props.onDragEnd}
                />
              </li>
            );
          })}
        </ul>
        {loadingMore ? <p className="muted">Loading more…</p> : null}
      </div>
    </section>
  );
}
