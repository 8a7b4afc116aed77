-- cos_task_search makes the last word a prefix ("fix a" finds "fix auth"). Without a prefix index FTS5
-- gathers the postings of every token that starts with it on each query, and a one- or two-character
-- prefix (a digit, a common letter) names most of the board's tokens: in bench:load, where task
-- titles carry numbers, the search was 14% of the hub's main thread. An index of one- and
-- two-character prefixes answers those from postings of their own (30% less CPU per search there).
-- The triggers on tasks name tasks_fts and keep working on the new table.
DROP TABLE tasks_fts;
CREATE VIRTUAL TABLE tasks_fts USING fts5 (
  title, body,
  content = 'tasks', content_rowid = 'id',
  tokenize = 'porter unicode61',
  prefix = '1 2'
);
INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');
