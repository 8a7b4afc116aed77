-- A team's file reservations (server/coord/reservations.ts, as 014-reservations.sql of server/db/ keeps
-- them alone): every hub grants, extends and releases them here, each change one transaction under the
-- team's reservation lock (pg_advisory_xact_lock) that reads the live ones, decides and writes, so two
-- hubs never grant overlapping exclusive holds; the feed entry telling the other hubs commits with it.
-- Times are ms since the epoch by the granting hub's clock.
CREATE TABLE team_reservations (
  team          text    NOT NULL,
  id            text    NOT NULL,
  holder        text    NOT NULL,
  holder_client text,
  machine       text    NOT NULL,
  paths         jsonb   NOT NULL,
  reason        text    NOT NULL,
  task_id       text,
  exclusive     boolean NOT NULL,
  created_at    bigint  NOT NULL,
  expires_at    bigint  NOT NULL,
  PRIMARY KEY (team, id)
);
CREATE INDEX team_reservations_expiry ON team_reservations (team, expires_at);
