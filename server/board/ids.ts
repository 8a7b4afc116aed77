// Task ids as callers give them: what a tool accepts as an id, and the not-found answer that says how to
// find the ids there are.
import { ToolError } from '../errors.ts';
import { parseTaskId, taskKey } from './model.ts';

export function requireTaskId(value: string): number {
  const id = parseTaskId(value);
  if (id === null) throw new ToolError('validation', `"${value}" is not a task id; pass one like TASK-12`);
  return id;
}

export function taskNotFound(id: number): ToolError {
  return new ToolError(
    'not_found',
    `${taskKey(id)} does not exist; cos_task_board or cos_task_search lists the tasks there are`,
  );
}
