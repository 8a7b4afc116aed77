-- A team's agents and hook events (server/agents/team.ts): every hub writes its own through the team
-- outbox (batched, never making a hook wait) and reads the others' from the feed; a hub starting late
-- loads the open agents and the recent events from here. Times are ms since the epoch by the reporting
-- hub's clock, as in SQLite (migration 011 of server/db/).

-- One row per agent: a hook session (source hooks) or an MCP session (source mcp), as its hub last
-- reported it. The hub that hears from an agent is the only one that writes its row.
CREATE TABLE team_agents (
  team           text    NOT NULL,
  id             text    NOT NULL,
  source         text    NOT NULL CHECK (source IN ('hooks', 'mcp')),
  -- The hub process (team_log.hub) and machine it reports to, and that clone's branch.
  hub            text    NOT NULL,
  machine        text    NOT NULL,
  branch         text,
  -- Hook client (claude-code, codex, …) or the MCP client's name.
  client         text,
  client_version text,
  model          text,
  cwd            text,
  started_at     bigint  NOT NULL,
  last_event_at  bigint  NOT NULL,
  activity       text,
  last_tool      text,
  -- An MCP session's agent_session (the hook session its calls named).
  agent_session  text,
  -- Hook events (hooks) or tool calls (mcp).
  events         integer NOT NULL DEFAULT 0,
  ended_at       bigint,
  end_reason     text,
  PRIMARY KEY (team, id)
);
CREATE INDEX team_agents_open ON team_agents (team, last_event_at) WHERE ended_at IS NULL;

-- Every hook event of every hub, already redacted by the hub that took it. id is that hub's own
-- (hook_events.id there), so an event written twice (an outbox batch retried) is kept once.
CREATE TABLE team_hook_events (
  team    text    NOT NULL,
  hub     text    NOT NULL,
  id      bigint  NOT NULL,
  at      bigint  NOT NULL,
  machine text    NOT NULL,
  branch  text,
  agent   text    NOT NULL,
  client  text    NOT NULL,
  event   text    NOT NULL,
  kind    text    NOT NULL,
  phase   text    CHECK (phase IN ('pre', 'post', 'failed')),
  tool    text,
  ok      boolean,
  summary text    NOT NULL,
  files   jsonb   NOT NULL DEFAULT '[]',
  detail  jsonb   NOT NULL DEFAULT '{}',
  PRIMARY KEY (team, hub, id)
);
CREATE INDEX team_hook_events_at ON team_hook_events (team, at);
