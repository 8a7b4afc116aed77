-- Observability: every tool call, WARN+ log events and MCP sessions. Retention is bounded by the
-- recorder (default 7 days or 200,000 rows); times are milliseconds since the epoch.

CREATE TABLE tool_calls (
  id             INTEGER PRIMARY KEY,
  at             INTEGER NOT NULL,           -- when the call started
  tool           TEXT    NOT NULL,
  module         TEXT    NOT NULL,
  transport      TEXT    NOT NULL CHECK (transport IN ('mcp', 'rest', 'internal')),
  mcp_session    TEXT,
  client_name    TEXT,
  client_version TEXT,
  agent_session  TEXT,
  duration_ms    REAL    NOT NULL,
  ok             INTEGER NOT NULL CHECK (ok IN (0, 1)),
  error_category TEXT,
  response_bytes INTEGER NOT NULL,
  truncated      INTEGER NOT NULL CHECK (truncated IN (0, 1))
) STRICT;
CREATE INDEX tool_calls_at ON tool_calls (at);
CREATE INDEX tool_calls_tool_at ON tool_calls (tool, at);
CREATE INDEX tool_calls_session ON tool_calls (mcp_session, at);

CREATE TABLE log_events (
  id       INTEGER PRIMARY KEY,
  at       INTEGER NOT NULL,
  level    TEXT    NOT NULL CHECK (level IN ('warn', 'error', 'fatal')),
  scope    TEXT,
  message  TEXT    NOT NULL,
  error_id TEXT,
  session  TEXT,
  stack    TEXT
) STRICT;
CREATE INDEX log_events_at ON log_events (at);
CREATE INDEX log_events_error_id ON log_events (error_id);

CREATE TABLE mcp_sessions (
  id               TEXT    PRIMARY KEY,
  client_name      TEXT,
  client_version   TEXT,
  created_at       INTEGER NOT NULL,
  last_activity_at INTEGER NOT NULL,
  last_tool        TEXT,
  agent_session    TEXT,
  calls            INTEGER NOT NULL DEFAULT 0,
  ended_at         INTEGER,
  end_reason       TEXT
) STRICT;
CREATE INDEX mcp_sessions_ended ON mcp_sessions (ended_at);
