-- A hub in a team shows the newer of its task file and the team's record of the task (server/board/
-- team-board.ts). The record's status, holder and version are written over the row's own, so every
-- query of the board sees the effective state at the speed it always had; the file's own values wait
-- beside them (file_*, null while the row shows the file) until the file catches up. `machine` is the
-- machine whose record the row shows (null without a team).
ALTER TABLE tasks ADD COLUMN machine TEXT;
ALTER TABLE tasks ADD COLUMN file_status TEXT;
ALTER TABLE tasks ADD COLUMN file_agent_session TEXT;
ALTER TABLE tasks ADD COLUMN file_version INTEGER;
-- Rows a team's record touched: a hub started without its team puts them back to their files at once.
CREATE INDEX tasks_team ON tasks (id) WHERE machine IS NOT NULL OR file_version IS NOT NULL;
