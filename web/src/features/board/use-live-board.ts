// Live board: the hub announces every task change (from this page, an agent over MCP, or a hand edit
// of a task file) as `task-updated`. Changed tasks are re-read through the typed client in batches; a
// large burst, or a gap the stream could not replay (`resync`), reloads the board instead.
import { useEffect, useRef } from 'react';
import { field, useHubEvents } from '../../lib/stream.ts';
import { type BoardBody, type BoardQuery, cardOf, showTask, type Task } from './api.ts';
import { findCard, placeCard, removeCard } from './board-state.ts';

const BATCH_MS = 250;
const RELOAD_ABOVE = 40;

function matches(task: Task, query: BoardQuery): boolean {
  if (task.status === 'archive' && !query.include_archive) return false;
  if (query.kind && task.kind !== query.kind) return false;
  if (query.label && !task.labels.includes(query.label)) return false;
  if (query.swimlane && task.swimlane !== query.swimlane) return false;
  if (query.epic && task.epic !== query.epic) return false;
  return true;
}

interface Options {
  query: BoardQuery;
  current: () => BoardBody | undefined;
  set: (update: (value: BoardBody) => BoardBody) => void;
  reload: () => void;
  /** Called with the id of every task that changed, so an open drawer can refresh. */
  onTaskChanged: (id: string) => void;
}

export function useLiveBoard({ query, current, set, reload, onTaskChanged }: Options): void {
  const pending = useRef(new Set<string>());
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const options = useRef({ query, current, set, reload, onTaskChanged });
  options.current = { query, current, set, reload, onTaskChanged };

  useEffect(() => () => clearTimeout(timer.current), []);

  const flush = async () => {
    timer.current = undefined;
    const ids = [...pending.current];
    pending.current.clear();
    const o = options.current;
    if (ids.length > RELOAD_ABOVE) {
      o.reload();
      return;
    }
    await Promise.all(
      ids.map(async (id) => {
        const outcome = await showTask(id);
        if (outcome.ok) {
          const task = outcome.value.data;
          o.set((v) => (matches(task, o.query) ? placeCard(v, cardOf(task)) : removeCard(v, id)));
        } else if (outcome.error.category === 'not_found') {
          o.set((v) => removeCard(v, id));
        }
        o.onTaskChanged(id);
      }),
    );
  };

  useHubEvents(['task-updated'], (event) => {
    if (event.type === 'resync') {
      options.current.reload();
      return;
    }
    const id = field(event.data, 'task_id', 'string');
    if (!id) return;
    // This page's own write already placed the card at this version.
    const version = field(event.data, 'version', 'number');
    const board = options.current.current();
    const known = board ? findCard(board, id) : undefined;
    if (known && version !== undefined && known.card.version >= version) return;
    pending.current.add(id);
    timer.current ??= setTimeout(flush, BATCH_MS);
  });
}
