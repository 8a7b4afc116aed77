-- A team's hubs share their agents (server/agents/team.ts): each hub's local view holds the other
-- machines' hook sessions and events beside its own. machine and branch say where an agent works (NULL
-- machine: this hub's own); origin is `<hub>:<id>` of an event another hub reported, so an event that
-- arrives twice (the feed, and the load at start) is kept once.
ALTER TABLE agent_sessions ADD COLUMN machine TEXT;
ALTER TABLE agent_sessions ADD COLUMN branch TEXT;
ALTER TABLE hook_events ADD COLUMN machine TEXT;
ALTER TABLE hook_events ADD COLUMN branch TEXT;
ALTER TABLE hook_events ADD COLUMN origin TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS hook_events_origin ON hook_events (origin) WHERE origin IS NOT NULL;
