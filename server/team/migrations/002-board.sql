-- The board across machines (server/board/team-board.ts). Task files stay the truth in git; this table
-- is the team's arbiter of who holds what now: one record per task, written by one conditional
-- statement per claim or move, read by every hub over its own clone's file until git brings the file.
CREATE TABLE team_tasks (
  team          text        NOT NULL,
  -- TASK-<n> without padding: TASK-046 and TASK-46 are one task, one record.
  key           text        NOT NULL,
  -- The number of the key: the next free id is max(n) + 1.
  n             integer     NOT NULL,
  status        text        NOT NULL,
  -- Who holds it; null unless in_progress.
  agent_session text,
  -- The machine whose hub made this record (holds it, or moved it last).
  machine       text        NOT NULL,
  -- The task file version the record corresponds to; 0: a reservation or claim that was undone, which
  -- keeps its id taken and never wins over a file.
  version       integer     NOT NULL,
  title         text        NOT NULL,
  -- Bumped on every write, so a hub keeps the newest of the records the feed and its own reads bring.
  rev           bigint      NOT NULL DEFAULT 1,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team, key),
  CHECK (agent_session IS NULL OR status = 'in_progress'),
  CHECK (version >= 0)
);
CREATE INDEX team_tasks_n ON team_tasks (team, n);
