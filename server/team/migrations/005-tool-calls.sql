-- A team's tool calls (server/agents/team.ts): each hub's recorded calls, as SQLite's tool_calls view
-- has them (migration 008 of server/db/), with the hub and machine that answered. Written through the
-- team outbox (never making a call wait), not put on the feed. id is the hub process's own counter.
CREATE TABLE team_tool_calls (
  team           text             NOT NULL,
  hub            text             NOT NULL,
  id             bigint           NOT NULL,
  machine        text             NOT NULL,
  at             bigint           NOT NULL,
  tool           text             NOT NULL,
  module         text             NOT NULL,
  transport      text             NOT NULL CHECK (transport IN ('mcp', 'rest', 'internal')),
  mcp_session    text,
  client_name    text,
  client_version text,
  agent_session  text,
  duration_ms    double precision NOT NULL,
  ok             boolean          NOT NULL,
  error_category text,
  response_bytes integer          NOT NULL,
  truncated      boolean          NOT NULL,
  PRIMARY KEY (team, hub, id)
);
CREATE INDEX team_tool_calls_at ON team_tool_calls (team, at);
