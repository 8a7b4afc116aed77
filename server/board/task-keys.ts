// The one way a task's number becomes the id the board shows. A task's id is the key its file writes
// (`TASK-046` on a zero-padded board), so every reader that names a task from a number it holds (a claim,
// an event, a commit's `TASK-46`, a change report) asks here instead of building `TASK-<n>`: a padded
// board is then named one way in every answer.
import type { Db } from '../db/open.ts';
import { formatTaskKey, parseTaskId } from './model.ts';

export interface TaskKeys {
  /**
   * The key of task `n` as its file writes it; for a number no indexed task has (a deleted task, a commit
   * naming one that never was), the key a task with that number would get on this board (its padding).
   */
  keyOf(n: number): string;
  /** `TASK-46`, `task-046`, `46` → the board's key for that number (`TASK-046`); null when no id at all. */
  resolve(token: string | number): string | null;
  /** Digits new ids are padded to on this board (0: it does not pad). */
  padWidth(): number;
}

const cache = new WeakMap<Db, TaskKeys>();

/** One per connection, statements prepared once (the tasks table exists whenever the db is migrated). */
export function taskKeys(db: Db): TaskKeys {
  const had = cache.get(db);
  if (had) return had;
  const byId = db.prepare<[number], { key: string }>('SELECT key FROM tasks WHERE id = ?');
  // The digits of the highest zero-padded key (`TASK-046` → 3): the board's padding convention. Keys
  // that are not padded (`TASK-1000` on a board padded to 3) say nothing about it. tasks_padded (a
  // partial index with this very WHERE) makes it one index step.
  const pad = db.prepare<[], { w: number }>(
    "SELECT length(key) - 5 AS w FROM tasks WHERE substr(key, 6, 1) = '0' ORDER BY id DESC LIMIT 1",
  );
  const padWidth = (): number => pad.get()?.w ?? 0;
  const keyOf = (n: number): string => {
    const key = byId.get(n)?.key;
    return key !== undefined && key !== '' ? key : formatTaskKey(n, padWidth());
  };
  const keys: TaskKeys = {
    keyOf,
    padWidth,
    resolve: (token) => {
      const n = parseTaskId(token);
      return n === null ? null : keyOf(n);
    },
  };
  cache.set(db, keys);
  return keys;
}
