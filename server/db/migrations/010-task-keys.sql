-- A task's id as its file writes it (`TASK-046` on a zero-padded board), kept verbatim in answers and in
-- the files the hub writes; `id` stays the number every spelling names. Boards written by other tools
-- were refused file by file before this, and the parse errors' hashes would keep them refused: the
-- index is emptied so the next start rebuilds it from the files (history is not tied to tasks and
-- stays).
ALTER TABLE tasks ADD COLUMN key TEXT NOT NULL DEFAULT '';
DELETE FROM tasks;
DELETE FROM task_parse_errors;
-- The board's padding convention (how many digits new ids get) is read from its highest zero-padded
-- key: one index step, on boards that pad and on those that do not.
CREATE INDEX tasks_padded ON tasks (id) WHERE substr(key, 6, 1) = '0';
