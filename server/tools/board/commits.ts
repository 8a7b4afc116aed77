// Commits as the board tools show them (cos_task_history's commit events, cos_task_changes). The bridge
// from an id a commit message or branch names to the task is the board's own (board.keys.resolve), so
// `TASK-012`, `task-12` and `12` link exactly when the board would resolve them to the task, whose key
// may be zero-padded (`TASK-012`) whatever the commit wrote.
import { Type } from '@sinclair/typebox';
import type { LinkedCommit } from '../../git/task-links.ts';
import { stringEnum } from './schemas.ts';

/** Files listed per commit; the count covers them all. */
const FILES_PER_COMMIT = 50;

export const CommitSchema = Type.Object({
  sha: Type.String(),
  author: Type.String(),
  time: Type.String({ description: 'author time, UTC' }),
  subject: Type.String(),
  link: stringEnum(['trailer', 'message', 'branch', 'merge'] as const, 'how the commit names the task'),
  files: Type.Array(Type.String(), { description: 'changed paths (renames as old → new)' }),
  files_total: Type.Integer(),
});

export function commitOut(c: LinkedCommit) {
  return {
    sha: c.sha,
    author: c.author,
    time: new Date(c.time).toISOString(),
    subject: c.subject,
    link: c.link,
    files: c.files
      .slice(0, FILES_PER_COMMIT)
      .map((f) => (f.old_path && f.status === 'renamed' ? `${f.old_path} → ${f.path}` : f.path)),
    files_total: c.files.length,
  };
}
