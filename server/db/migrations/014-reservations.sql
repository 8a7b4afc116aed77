-- File reservations (leases) agents take before they edit (server/coord/reservations.ts): who holds which
-- repository paths or globs, why, for which task, until when. A row is a live reservation or one that
-- expired and was not swept yet (every reader also compares expires_at with its clock); a released or
-- ended reservation is deleted, its story kept on the holder's timeline (hook_events) and the stream.
-- Times are ms since the epoch. IF NOT EXISTS: a database rolled back to an older schema (tests) takes
-- this again unharmed.

CREATE TABLE IF NOT EXISTS reservations (
  id            TEXT    PRIMARY KEY,        -- R-<10 hex>, made by the granting hub
  holder        TEXT    NOT NULL,           -- the agent_session that holds it
  holder_client TEXT,                       -- its client (claude-code, codex, …) when known, for labels
  machine       TEXT    NOT NULL,           -- the machine whose hub granted it
  paths         TEXT    NOT NULL,           -- JSON array of repository-relative paths and globs, normalised
  reason        TEXT    NOT NULL,
  task_id       TEXT,                       -- the board's key of the task it is tied to
  exclusive     INTEGER NOT NULL CHECK (exclusive IN (0, 1)),
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS reservations_expiry ON reservations (expires_at);
