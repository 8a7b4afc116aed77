-- Token usage read from the agents' own transcripts (server/costs/). One row per model response, keyed
-- so a response that a transcript repeats (Claude Code writes one line per content block, each with the
-- message's usage; a resumed session copies earlier lines) counts once. input_tokens are the tokens
-- billed at the input price (a cache read or write is counted apart, for every client). Cost is not
-- stored: it is computed from the price table when asked, so a corrected price applies to the past too.
-- Times are ms since the epoch. IF NOT EXISTS: a database rolled back to an older schema takes this again.

CREATE TABLE IF NOT EXISTS usage_records (
  id                 INTEGER PRIMARY KEY,
  key                TEXT    NOT NULL UNIQUE,   -- client-prefixed: cc:<message id>:<request id>, …
  agent_session      TEXT    NOT NULL,          -- the hook session whose transcript said it
  client             TEXT    NOT NULL,
  model              TEXT,                      -- as the transcript names it; null when it does not
  at                 INTEGER NOT NULL,
  input_tokens       INTEGER NOT NULL,
  output_tokens      INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  cache_read_tokens  INTEGER NOT NULL,
  source_id          INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS usage_records_agent ON usage_records (agent_session, at);
CREATE INDEX IF NOT EXISTS usage_records_at ON usage_records (at);

-- Each transcript the hub reads and how far: the byte after the last whole line it took (JSONL), the
-- file's identity (a rotated or replaced file starts again from 0) and the reader's carried state (the
-- model a Codex turn named, its running totals).
CREATE TABLE IF NOT EXISTS usage_sources (
  id            INTEGER PRIMARY KEY,
  path          TEXT    NOT NULL UNIQUE,        -- real path
  client        TEXT    NOT NULL,
  agent_session TEXT    NOT NULL,
  dev           INTEGER NOT NULL DEFAULT 0,
  ino           INTEGER NOT NULL DEFAULT 0,
  offset        INTEGER NOT NULL DEFAULT 0,
  size          INTEGER NOT NULL DEFAULT 0,
  mtime_ms      INTEGER NOT NULL DEFAULT 0,
  head          TEXT,                           -- its first bytes (hex): a file rewritten in place differs
  state         TEXT,                           -- JSON
  read_at       INTEGER,
  records       INTEGER NOT NULL DEFAULT 0,
  error         TEXT
) STRICT;
