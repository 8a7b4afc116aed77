// The board: columns by status, drag a card to move it (the hub's transition and WIP rules decide; a
// refused move snaps back and says why), filters in the URL, a drawer for the task, and a form to create.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useCostMap } from '../../components/costs/use-costs.ts';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import type { ApiError } from '../../lib/api.ts';
import { count } from '../../lib/plural.ts';
import { navigate, useLocation, withParams } from '../../lib/router.tsx';
import { useQuery } from '../../lib/use-query.ts';
import {
  type BoardQuery,
  boardConfig,
  type Card,
  cardOf,
  KINDS,
  listBoard,
  moveTask,
  STATUS_LABEL,
  type Status,
  type Task,
} from './api.ts';
import { BoardColumn } from './board-column.tsx';
import { appendPage, findCard, placeCard } from './board-state.ts';
import { TaskDrawer } from './task-drawer.tsx';
import { TaskForm } from './task-form.tsx';
import { useLiveBoard } from './use-live-board.ts';

interface MoveFailure {
  error: ApiError;
  id: string;
  to: Status;
}

function Board() {
  const location = useLocation();
  const p = location.params;
  const kind = KINDS.find((k) => k === p.get('kind'));
  const query: BoardQuery = {
    ...(kind ? { kind } : {}),
    ...(p.get('label') ? { label: p.get('label') ?? '' } : {}),
    ...(p.get('swimlane') ? { swimlane: p.get('swimlane') ?? '' } : {}),
    ...(p.get('archive') === '1' ? { include_archive: true } : {}),
  };
  const key = JSON.stringify(query);
  const board = useQuery(`board:${key}`, (signal) => listBoard(query, signal));
  const config = useQuery('board-config', (signal) => boardConfig(signal));
  const costs = useCostMap('task');
  const [dragging, setDragging] = useState<Card | undefined>();
  const [failure, setFailure] = useState<MoveFailure | undefined>();
  const [loadingMore, setLoadingMore] = useState<ReadonlySet<Status>>(new Set());
  const [creating, setCreating] = useState(false);
  const [revision, setRevision] = useState(0);
  const text = (p.get('q') ?? '').trim().toLowerCase();
  const selected = p.get('task') ?? undefined;

  const value = board.state.value;
  const valueRef = useRef(value);
  valueRef.current = value;
  const queryRef = useRef(query);
  queryRef.current = query;

  const setParam = (name: string, next: string | null) =>
    navigate(withParams(location, { [name]: next || null }), { replace: name === 'q' });

  const open = useCallback((id: string) => navigate(withParams(location, { task: id })), [location]);
  const close = useCallback(() => navigate(withParams(location, { task: null })), [location]);

  const more = useCallback(
    async (status: Status) => {
      const cursor = valueRef.current?.data.columns.find((c) => c.status === status)?.next_cursor;
      if (!cursor) return;
      setLoadingMore((s) => new Set(s).add(status));
      const outcome = await listBoard({ ...queryRef.current, cursor });
      setLoadingMore((s) => {
        const n = new Set(s);
        n.delete(status);
        return n;
      });
      if (outcome.ok) board.set((v) => appendPage(v, status, outcome.value));
    },
    [board.set],
  );

  const drop = async (to: Status) => {
    const card = dragging;
    setDragging(undefined);
    if (!card || !valueRef.current) return;
    const before = findCard(valueRef.current, card.id);
    if (!before || before.status === to) return;
    setFailure(undefined);
    board.set((v) => placeCard(v, { ...card, status: to }));
    const outcome = await moveTask(card.id, to, card.version);
    if (outcome.ok) {
      board.set((v) => placeCard(v, cardOf(outcome.value.data.task)));
      if (selected === card.id) setRevision((r) => r + 1);
    } else {
      // Snap back to exactly where it was.
      board.set((v) => placeCard(v, before.card, before.index));
      setFailure({ error: outcome.error, id: card.id, to });
    }
  };

  useLiveBoard({
    query,
    current: () => valueRef.current,
    set: board.set,
    reload: board.reload,
    onTaskChanged: (id) => {
      if (id === selected) setRevision((r) => r + 1);
    },
  });

  const changed = useCallback(
    (task: Task) => {
      board.set((v) => placeCard(v, cardOf(task)));
    },
    [board.set],
  );

  const columns = value?.data.columns ?? [];
  const transitions = config.state.value?.data.columns;
  const allowedFrom = useMemo(() => {
    const map = new Map<Status, readonly Status[]>();
    for (const c of transitions ?? []) map.set(c.status, c.transitions);
    return map;
  }, [transitions]);
  const visible = (cards: Card[]) =>
    text
      ? cards.filter((c) =>
          `${c.id} ${c.title} ${c.labels.join(' ')} ${c.agent_session ?? ''}`.toLowerCase().includes(text),
        )
      : cards;

  // The drawer sits beside the board, not over it: when it opens (a card clicked, a task just created),
  // the opened card is scrolled into the part of the board the drawer leaves visible.
  const shown = useRef<string | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new board value may bring the card in
  useEffect(() => {
    if (!selected) {
      shown.current = undefined;
      return;
    }
    if (shown.current === selected) return;
    const card = document.querySelector(`[data-task-id="${CSS.escape(selected)}"]`);
    if (!card) return;
    shown.current = selected;
    card.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [selected, value]);

  return (
    <div className={`board-page${selected ? ' with-drawer' : ''}`}>
      <search className="toolbar" aria-label="Filter the board">
        <label>
          Find{' '}
          <input
            type="search"
            placeholder="title, id, label, agent"
            defaultValue={p.get('q') ?? ''}
            onChange={(e) => setParam('q', e.currentTarget.value)}
          />
        </label>
        <label>
          Kind{' '}
          <select value={kind ?? ''} onChange={(e) => setParam('kind', e.currentTarget.value)}>
            <option value="">any</option>
            {KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label>
          Label{' '}
          <input
            type="text"
            size={10}
            defaultValue={p.get('label') ?? ''}
            onKeyDown={(e) => {
              if (e.key === 'Enter') setParam('label', e.currentTarget.value.trim());
            }}
            onBlur={(e) => setParam('label', e.currentTarget.value.trim())}
          />
        </label>
        {(config.state.value?.data.swimlanes.length ?? 0) > 0 ? (
          <label>
            Swimlane{' '}
            <select
              value={p.get('swimlane') ?? ''}
              onChange={(e) => setParam('swimlane', e.currentTarget.value)}
            >
              <option value="">all</option>
              {config.state.value?.data.swimlanes.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          <input
            type="checkbox"
            checked={p.get('archive') === '1'}
            onChange={(e) => setParam('archive', e.currentTarget.checked ? '1' : null)}
          />{' '}
          Show archive
        </label>
        <span className="muted" data-testid="board-total">
          {value ? count(value.data.total, 'task') : ''}
        </span>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New task
        </button>
      </search>
      {failure ? (
        <div data-testid="move-error">
          <p className="move-error-lead">
            <strong>
              {failure.id} stayed where it was: moving it to {STATUS_LABEL[failure.to]} was refused.
            </strong>{' '}
            <button type="button" className="link" onClick={() => setFailure(undefined)}>
              Dismiss
            </button>
          </p>
          <ErrorNotice error={failure.error} module="tasks" compact />
        </div>
      ) : null}
      {board.state.status === 'error' ? (
        <ErrorNotice error={board.state.error} onRetry={board.reload} module="tasks" />
      ) : null}
      {value?.meta.truncated ? (
        <p className="notice notice-info">The hub cut this board to fit its budget.</p>
      ) : null}
      {creating ? (
        <dialog open className="modal" aria-label="New task">
          <h2>New task</h2>
          <TaskForm
            swimlanes={config.state.value?.data.swimlanes ?? []}
            onCancel={() => setCreating(false)}
            onDone={(task) => {
              setCreating(false);
              changed(task);
              open(task.id);
            }}
          />
        </dialog>
      ) : null}
      <div className="board" data-testid="board">
        {!value && board.state.status === 'loading' ? <p className="muted">Loading the board…</p> : null}
        {columns.map((column) => (
          <BoardColumn
            key={column.status}
            column={column}
            cards={visible(column.cards)}
            selectedId={selected}
            dragging={dragging}
            allowed={dragging ? (allowedFrom.get(dragging.status)?.includes(column.status) ?? true) : false}
            loadingMore={loadingMore.has(column.status)}
            costs={costs}
            onOpen={open}
            onDragStart={setDragging}
            onDragEnd={() => setDragging(undefined)}
            onDrop={drop}
            onMore={more}
          />
        ))}
      </div>
      {selected ? (
        <TaskDrawer
          key={selected}
          id={selected}
          config={config.state.value?.data}
          revision={revision}
          onClose={close}
          onChanged={changed}
        />
      ) : null}
    </div>
  );
}

export default function BoardPage() {
  return (
    <Page title="Board">
      <ModuleGate modules={['tasks']}>
        <Board />
      </ModuleGate>
    </Page>
  );
}
