-- Task board index. The markdown files under the tasks directory are the truth; these tables index them
-- for queries and search and can be rebuilt from the files at any time (reconciliation). History, WIP
-- bypasses and the id counter are the exception: they are the hub's own records and survive a rebuild.

CREATE TABLE tasks (
  id             INTEGER PRIMARY KEY,          -- the <n> of TASK-<n>
  path           TEXT    NOT NULL UNIQUE,      -- file name relative to the tasks directory
  title          TEXT    NOT NULL,
  status         TEXT    NOT NULL,
  kind           TEXT    NOT NULL,
  priority       TEXT    NOT NULL,             -- P0..P3
  priority_rank  INTEGER NOT NULL,             -- 0..3, so "highest priority first" is an index scan
  appetite       TEXT,
  swimlane       TEXT,
  epic           TEXT,
  labels         TEXT    NOT NULL DEFAULT '[]', -- JSON array, as in the file
  created        TEXT,
  started        TEXT,
  completed      TEXT,
  agent_session  TEXT,
  depends_on     TEXT    NOT NULL DEFAULT '[]',
  blocked_by     TEXT    NOT NULL DEFAULT '[]',
  refs           TEXT    NOT NULL DEFAULT '[]', -- `references` in the file (a reserved word in SQL)
  version        INTEGER NOT NULL,
  ready          INTEGER NOT NULL DEFAULT 0,   -- 1 when labels contain "ready"
  body           TEXT    NOT NULL,
  content_hash   TEXT    NOT NULL,             -- sha1 of the file's bytes: the watcher skips our own writes
  indexed_at     TEXT    NOT NULL
) STRICT;

CREATE INDEX tasks_column ON tasks (status, priority_rank, id);
CREATE INDEX tasks_claim ON tasks (ready, status, priority_rank, id);

-- Labels and dependencies as rows, so label filters and dependents are index lookups.
CREATE TABLE task_labels (
  task_id INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  label   TEXT    NOT NULL,
  PRIMARY KEY (task_id, label)
) STRICT, WITHOUT ROWID;
CREATE INDEX task_labels_label ON task_labels (label, task_id);

CREATE TABLE task_deps (
  task_id    INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  depends_on INTEGER NOT NULL,                -- may name a task that does not exist (yet)
  PRIMARY KEY (task_id, depends_on)
) STRICT, WITHOUT ROWID;
CREATE INDEX task_deps_reverse ON task_deps (depends_on, task_id);

-- Full-text search over title and body (bm25, snippets); external content kept in step by triggers.
CREATE VIRTUAL TABLE tasks_fts USING fts5 (
  title, body,
  content = 'tasks', content_rowid = 'id',
  tokenize = 'porter unicode61'
);
CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
  INSERT INTO tasks_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF title, body ON tasks BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
  INSERT INTO tasks_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
END;

-- History: created, status, edit, work-log and file events. Not tied to tasks by a foreign key because a
-- task's file can be deleted while its history stays worth reading.
CREATE TABLE task_events (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id       INTEGER NOT NULL,
  at            TEXT    NOT NULL,
  type          TEXT    NOT NULL CHECK (type IN ('created', 'status', 'edit', 'work_log', 'file', 'deleted')),
  from_status   TEXT,
  to_status     TEXT,
  agent_session TEXT,
  source        TEXT    NOT NULL CHECK (source IN ('file', 'api', 'mcp')),
  reason        TEXT,
  version       INTEGER,
  detail        TEXT                           -- JSON: changed fields, work-log text
) STRICT;
CREATE INDEX task_events_task ON task_events (task_id, seq);

-- Every WIP cap bypass, with its reason: bypasses are allowed but never silent.
CREATE TABLE wip_bypasses (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id       INTEGER NOT NULL,
  at            TEXT    NOT NULL,
  column_status TEXT    NOT NULL,
  cap           INTEGER NOT NULL,
  count_before  INTEGER NOT NULL,
  reason        TEXT    NOT NULL,
  agent_session TEXT,
  source        TEXT    NOT NULL
) STRICT;

-- Files under the tasks directory that do not parse: reported, never rewritten or dropped.
CREATE TABLE task_parse_errors (
  path         TEXT PRIMARY KEY,               -- relative to the tasks directory
  reason       TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  seen_at      TEXT NOT NULL
) STRICT;

-- Id allocator: one row, bumped inside an IMMEDIATE transaction, so concurrent creates (in this process
-- or another one on the same database) never get the same id. Reconciliation raises it to above the
-- largest id on disk.
CREATE TABLE task_id_counter (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  next_id   INTEGER NOT NULL
) STRICT;
INSERT INTO task_id_counter (singleton, next_id) VALUES (1, 1);
