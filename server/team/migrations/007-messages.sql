-- A team's messages (server/messages/pg-store.ts): the same rows as SQLite's migration 015, one set per
-- team. A message and the feed entry announcing it commit together; a delivery mark comes through the
-- outbox (a hook answer never waits for it); an ack is a transaction of its own. Times are ms since the
-- epoch by the clock of the hub that wrote them.

CREATE TABLE team_messages (
  team       text    NOT NULL,
  id         text    NOT NULL,
  thread_id  text    NOT NULL,
  sender     text    NOT NULL,
  machine    text    NOT NULL,
  addressed  text    NOT NULL,
  subject    text,
  body       text    NOT NULL,
  urgent     boolean NOT NULL,
  created_at bigint  NOT NULL,
  PRIMARY KEY (team, id)
);
CREATE INDEX team_messages_thread ON team_messages (team, thread_id, created_at);
CREATE INDEX team_messages_created ON team_messages (team, created_at);

CREATE TABLE team_message_recipients (
  team         text   NOT NULL,
  recipient    text   NOT NULL,
  message_id   text   NOT NULL,
  delivered_at bigint,
  acked_at     bigint,
  PRIMARY KEY (team, recipient, message_id),
  FOREIGN KEY (team, message_id) REFERENCES team_messages (team, id) ON DELETE CASCADE
);
CREATE INDEX team_message_recipients_message ON team_message_recipients (team, message_id);
-- What a hub starting late loads to deliver: the team's messages not yet in anyone's context.
CREATE INDEX team_message_recipients_pending ON team_message_recipients (team)
  WHERE delivered_at IS NULL AND acked_at IS NULL;
