-- Agents as their lifecycle hooks report them (Claude Code, Codex, Gemini CLI): one row per hook session
-- and one row per event, already redacted. Retention is the tool calls' (COS_RETENTION_DAYS, _ROWS).
-- IF NOT EXISTS: a database rolled back to an older schema version (tests do) takes this again unharmed.

CREATE TABLE IF NOT EXISTS agent_sessions (
  id            TEXT    PRIMARY KEY,        -- the client's session_id, as sent
  client        TEXT    NOT NULL,           -- claude-code | codex | gemini | unknown
  model         TEXT,
  cwd           TEXT,
  started_at    INTEGER NOT NULL,
  last_event_at INTEGER NOT NULL,
  activity      TEXT,                       -- what it is doing now, one redacted line
  events        INTEGER NOT NULL DEFAULT 0,
  ended_at      INTEGER,
  end_reason    TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS agent_sessions_ended ON agent_sessions (ended_at);

CREATE TABLE IF NOT EXISTS hook_events (
  id      INTEGER PRIMARY KEY,
  at      INTEGER NOT NULL,
  agent   TEXT    NOT NULL,                 -- agent_sessions.id
  client  TEXT    NOT NULL,
  event   TEXT    NOT NULL,                 -- hook_event_name as the client sent it
  kind    TEXT    NOT NULL,                 -- session_start, prompt, edit, command, read, tool, conflict, …
  phase   TEXT    CHECK (phase IN ('pre', 'post', 'failed')),
  tool    TEXT,
  ok      INTEGER CHECK (ok IN (0, 1)),
  summary TEXT    NOT NULL,
  detail  TEXT    NOT NULL                  -- JSON, redacted and size-capped
) STRICT;
CREATE INDEX IF NOT EXISTS hook_events_at ON hook_events (at);
CREATE INDEX IF NOT EXISTS hook_events_agent_at ON hook_events (agent, at);
-- Failures are what is looked for by kind most ("which commands failed"); other kinds are found by
-- walking back from the newest row, which keeps an event's write to three b-trees.
CREATE INDEX IF NOT EXISTS hook_events_failed ON hook_events (kind, id) WHERE ok = 0;

-- The files an event names (edited or read), repository-relative when inside it: "who touched file Y".
CREATE TABLE IF NOT EXISTS hook_event_files (
  path     TEXT    NOT NULL,
  event_id INTEGER NOT NULL,
  agent    TEXT    NOT NULL,
  at       INTEGER NOT NULL,
  role     TEXT    NOT NULL CHECK (role IN ('edit', 'read')),
  PRIMARY KEY (path, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS hook_event_files_agent ON hook_event_files (agent, at);
CREATE INDEX IF NOT EXISTS hook_event_files_event ON hook_event_files (event_id);
