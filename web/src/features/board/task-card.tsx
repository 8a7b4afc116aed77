import { type DragEvent, memo } from 'react';
import type { CostGroup } from '../../components/costs/api.ts';
import { CostAmount } from '../../components/costs/cost-views.tsx';
import type { Card } from './api.ts';

interface Props {
  card: Card;
  selected: boolean;
  cost?: CostGroup | undefined;
  onOpen: (id: string) => void;
  onDragStart: (card: Card) => void;
  onDragEnd: () => void;
}

/**
 * A card: priority and kind in words (not colour alone), labels, the agent working on it and, in a team,
 * the machine that agent works on, and what the agents' work on it cost (marked when over the budget).
 */
export const TaskCard = memo(function TaskCard({
  card,
  selected,
  cost,
  onOpen,
  onDragStart,
  onDragEnd,
}: Props) {
  const start = (event: DragEvent<HTMLElement>) => {
    event.dataTransfer.setData('text/plain', card.id);
    event.dataTransfer.effectAllowed = 'move';
    onDragStart(card);
  };
  return (
    <article
      className={`task-card priority-${card.priority}${selected ? ' selected' : ''}`}
      draggable
      onDragStart={start}
      onDragEnd={onDragEnd}
      data-task-id={card.id}
      aria-label={`${card.id}: ${card.title}`}
    >
      <div className="task-card-top">
        <span className={`prio prio-${card.priority}`} title="priority">
          {card.priority}
        </span>
        <span className="kind">{card.kind}</span>
        <span className="task-id">{card.id}</span>
      </div>
      <button type="button" className="task-title" onClick={() => onOpen(card.id)}>
        {card.title}
      </button>
      {card.labels.length > 0 || card.agent_session || card.appetite || cost ? (
        <div className="task-card-meta">
          {card.labels.map((label) => (
            <span key={label} className="label">
              #{label}
            </span>
          ))}
          {card.appetite ? <span className="muted">⏱ {card.appetite}</span> : null}
          <CostAmount cost={cost} overBudget={cost?.task?.over_budget ?? false} />
          {card.agent_session ? (
            <span className="agent" title="agent session">
              <span aria-hidden="true">●</span> {card.agent_session}
              {card.machine ? <span className="machine"> on {card.machine}</span> : null}
            </span>
          ) : null}
        </div>
      ) : null}
    </article>
  );
});
