-- Recorded tool calls, split in two. What repeats on every call of a session (tool, module, transport,
-- MCP session, client name and version) is stored once per "origin" in tool_call_origins; a call is a
-- narrow row of numbers in tool_call_rows. The writer thread binds eight values a row instead of
-- thirteen, six of them strings SQLite had to copy: about half its CPU per call, on a thread that
-- competes with the hub for the cores.
--
-- `tool_calls` stays what readers know: a view with the old columns, which accepts INSERT and DELETE
-- through triggers (so SQL written against the old table keeps working).

CREATE TABLE tool_call_origins (
  -- AUTOINCREMENT: an id is never reused, so the writer may re-create an origin that retention removed
  -- under its old id and rows can never point at somebody else's.
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  tool           TEXT    NOT NULL,
  module         TEXT    NOT NULL,
  transport      TEXT    NOT NULL CHECK (transport IN ('mcp', 'rest', 'internal')),
  mcp_session    TEXT,
  client_name    TEXT,
  client_version TEXT,
  -- The latest `at` of its calls; retention removes origins older than every row left.
  last_at        INTEGER NOT NULL
) STRICT;

CREATE TABLE tool_call_rows (
  id             INTEGER PRIMARY KEY,
  at             INTEGER NOT NULL,           -- when the call started
  origin         INTEGER NOT NULL,           -- tool_call_origins.id
  agent_session  TEXT,
  duration_ms    REAL    NOT NULL,
  ok             INTEGER NOT NULL CHECK (ok IN (0, 1)),
  error_category TEXT,
  response_bytes INTEGER NOT NULL,
  truncated      INTEGER NOT NULL CHECK (truncated IN (0, 1))
) STRICT;

INSERT INTO tool_call_origins (tool, module, transport, mcp_session, client_name, client_version, last_at)
  SELECT tool, module, transport, mcp_session, client_name, client_version, max(at)
  FROM tool_calls GROUP BY tool, module, transport, mcp_session, client_name, client_version;

INSERT INTO tool_call_rows (id, at, origin, agent_session, duration_ms, ok, error_category, response_bytes, truncated)
  SELECT c.id, c.at, o.id, c.agent_session, c.duration_ms, c.ok, c.error_category, c.response_bytes, c.truncated
  FROM tool_calls c JOIN tool_call_origins o
    ON o.tool = c.tool AND o.module = c.module AND o.transport = c.transport
   AND o.mcp_session IS c.mcp_session AND o.client_name IS c.client_name
   AND o.client_version IS c.client_version;

DROP TABLE tool_calls;
CREATE INDEX tool_call_rows_at ON tool_call_rows (at);

-- LEFT JOIN on the origin's primary key: one key lookup per row read. SQLite does not drop the join
-- when a query reads no origin column, so counting queries read tool_call_rows itself.
CREATE VIEW tool_calls AS
  SELECT r.id, r.at, o.tool, o.module, o.transport, o.mcp_session, o.client_name, o.client_version,
         r.agent_session, r.duration_ms, r.ok, r.error_category, r.response_bytes, r.truncated
  FROM tool_call_rows r LEFT JOIN tool_call_origins o ON o.id = r.origin;

CREATE TRIGGER tool_calls_insert INSTEAD OF INSERT ON tool_calls
BEGIN
  INSERT INTO tool_call_origins (tool, module, transport, mcp_session, client_name, client_version, last_at)
    SELECT NEW.tool, NEW.module, NEW.transport, NEW.mcp_session, NEW.client_name, NEW.client_version, NEW.at
    WHERE NOT EXISTS (
      SELECT 1 FROM tool_call_origins
      WHERE tool = NEW.tool AND module = NEW.module AND transport = NEW.transport
        AND mcp_session IS NEW.mcp_session AND client_name IS NEW.client_name
        AND client_version IS NEW.client_version);
  INSERT INTO tool_call_rows (id, at, origin, agent_session, duration_ms, ok, error_category, response_bytes, truncated)
    VALUES (NEW.id, NEW.at,
      (SELECT id FROM tool_call_origins
       WHERE tool = NEW.tool AND module = NEW.module AND transport = NEW.transport
         AND mcp_session IS NEW.mcp_session AND client_name IS NEW.client_name
         AND client_version IS NEW.client_version
       ORDER BY id DESC LIMIT 1),
      NEW.agent_session, NEW.duration_ms, NEW.ok, NEW.error_category, NEW.response_bytes, NEW.truncated);
  UPDATE tool_call_origins SET last_at = max(last_at, NEW.at)
    WHERE id = (SELECT origin FROM tool_call_rows WHERE id = last_insert_rowid());
END;

CREATE TRIGGER tool_calls_delete INSTEAD OF DELETE ON tool_calls
BEGIN
  DELETE FROM tool_call_rows WHERE id = OLD.id;
END;
