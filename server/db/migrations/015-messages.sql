-- Messages between agents and people (server/messages/): one row per message, one per recipient with
-- when it entered the recipient's context (a hook answer carried it) and when the recipient acked it.
-- Bodies and subjects are redacted before they are written. Times are ms since the epoch.
-- IF NOT EXISTS: a database rolled back to an older schema version (tests do) takes this again unharmed.

CREATE TABLE IF NOT EXISTS messages (
  id         TEXT    PRIMARY KEY,           -- m-<time base36>-<random hex>
  thread_id  TEXT    NOT NULL,              -- the id of the thread's first message (its own for a new one)
  sender     TEXT    NOT NULL,              -- an agent session, or 'human' (a person on the hub's page)
  machine    TEXT    NOT NULL,              -- the machine whose hub took it
  addressed  TEXT    NOT NULL,              -- `to` as written: a session, task:TASK-7, all, human
  subject    TEXT,
  body       TEXT    NOT NULL,
  urgent     INTEGER NOT NULL CHECK (urgent IN (0, 1)),
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS messages_thread ON messages (thread_id, created_at);
CREATE INDEX IF NOT EXISTS messages_created ON messages (created_at);

CREATE TABLE IF NOT EXISTS message_recipients (
  recipient    TEXT    NOT NULL,            -- an agent session, or 'human'
  message_id   TEXT    NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  delivered_at INTEGER,
  acked_at     INTEGER,
  PRIMARY KEY (recipient, message_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS message_recipients_message ON message_recipients (message_id);
