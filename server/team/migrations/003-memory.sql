-- Memory shared by a team (server/memory/pg-store.ts): what one agent learned, found by every agent of
-- the team on every machine. Ids are the team database's: cos_details(id) works on any hub. Times are ms
-- since the epoch by the recording hub's clock, as in SQLite (migration 004 of server/db/).
CREATE TABLE memory_observations (
  id               bigserial PRIMARY KEY,
  team             text             NOT NULL,
  -- The machine whose hub recorded it (COS_MACHINE).
  machine          text             NOT NULL,
  memory_type      text             NOT NULL CHECK (memory_type IN ('pattern', 'decision', 'pitfall', 'fact', 'preference')),
  confidence       double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  impact           text             NOT NULL CHECK (impact IN ('low', 'medium', 'high', 'critical')),
  created_at       bigint           NOT NULL,
  last_accessed_at bigint,
  access_count     integer          NOT NULL DEFAULT 0 CHECK (access_count >= 0),
  merged_count     integer          NOT NULL DEFAULT 0 CHECK (merged_count >= 0),
  -- '' rather than NULL when no session is known: NULLs are distinct in a UNIQUE key, so they would never merge.
  agent_session    text             NOT NULL DEFAULT '',
  task_id          text,
  content_hash     text             NOT NULL,
  title            text             NOT NULL,
  concepts         text[]           NOT NULL DEFAULT '{}',
  files            text[]           NOT NULL DEFAULT '{}',
  facts            text[]           NOT NULL DEFAULT '{}',
  narrative        text             NOT NULL DEFAULT '',
  -- Built by the hub (server/memory/pg-text.ts), not by to_tsvector: the same tokens whatever the
  -- server's locale, and bigrams for scripts written without spaces.
  search           tsvector         NOT NULL,
  -- The text folded as queries are, for the bounded substring fallback (no pg_trgm: it needs an extension).
  search_text      text             NOT NULL,
  -- The exact duplicate of a session merges into its first record: INSERT … ON CONFLICT on this key, so two
  -- hubs recording it at once still make one row.
  CONSTRAINT memory_observations_session_content UNIQUE (team, agent_session, content_hash)
);

CREATE INDEX memory_observations_search ON memory_observations USING gin (search);
CREATE INDEX memory_observations_team_created ON memory_observations (team, created_at DESC, id DESC);
CREATE INDEX memory_observations_team_task ON memory_observations (team, task_id) WHERE task_id IS NOT NULL;

-- A forget leaves a trace of the act, not of the content: no title or narrative is kept.
CREATE TABLE memory_forgets (
  id             bigserial PRIMARY KEY,
  team           text   NOT NULL,
  machine        text   NOT NULL,
  observation_id bigint NOT NULL,
  content_hash   text   NOT NULL,
  memory_type    text   NOT NULL,
  agent_session  text   NOT NULL,
  reason         text   NOT NULL DEFAULT '',
  forgotten_by   text   NOT NULL,
  forgotten_at   bigint NOT NULL
);

CREATE INDEX memory_forgets_team_at ON memory_forgets (team, forgotten_at DESC, id DESC);
