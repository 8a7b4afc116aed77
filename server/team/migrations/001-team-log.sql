-- The team feed (server/team/feed.ts): what each hub tells the others, in commit order per team.
CREATE TABLE team_log (
  seq bigserial PRIMARY KEY,
  team text NOT NULL,
  hub text NOT NULL,
  machine text NOT NULL,
  kind text NOT NULL,
  body jsonb NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX team_log_team_seq ON team_log (team, seq);
CREATE INDEX team_log_at ON team_log (at);

-- Every hub process of every team, with its machine, while it runs (cos_health lists the team's hubs).
CREATE TABLE team_hubs (
  hub text PRIMARY KEY,
  team text NOT NULL,
  machine text NOT NULL,
  repository text NOT NULL,
  version text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX team_hubs_team ON team_hubs (team, seen_at);
