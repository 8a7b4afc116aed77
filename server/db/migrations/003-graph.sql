-- Code graph (issue 5). Written only by the indexer worker; read by the graph tools (issue 6).
-- Every node and edge that comes from a file is owned by that file's row, so pruning a file is one
-- DELETE that cascades; externals, dependencies and folders have no owner and are garbage-collected
-- by the indexer after each pass.

CREATE TABLE graph_files (
  id          INTEGER PRIMARY KEY,
  path        TEXT NOT NULL UNIQUE,          -- repo-relative, forward slashes
  language    TEXT NOT NULL,
  hash        TEXT NOT NULL,                 -- sha1 of the content
  size        INTEGER NOT NULL,
  mtime_ms    REAL NOT NULL,
  duration_ms REAL NOT NULL,                 -- extraction time (doctor: slowest_extractions)
  error       TEXT,                          -- parse/extraction error; the file's other facts may be partial
  generation  INTEGER NOT NULL,              -- graph generation of the last (re)extraction
  indexed_at  INTEGER NOT NULL,              -- ms since epoch
  facts       TEXT NOT NULL DEFAULT '{}'     -- JSON: unresolved references, bindings, re-exports (for re-resolution)
) STRICT;

CREATE TABLE graph_nodes (
  id             INTEGER PRIMARY KEY,
  uid            TEXT NOT NULL UNIQUE,
  kind           TEXT NOT NULL,
  label          TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  file_path      TEXT,                       -- null for external, dependency
  start_line     INTEGER,
  end_line       INTEGER,
  language       TEXT,
  signature      TEXT,
  metadata       TEXT,                       -- JSON object or null
  file_id        INTEGER REFERENCES graph_files(id) ON DELETE CASCADE
) STRICT;
-- No index on kind alone: a handful of values over the whole table, so a scan is as fast, and every
-- index costs each of the tens of thousands of inserts of a cold pass.
CREATE INDEX graph_nodes_file_path ON graph_nodes(file_path);
CREATE INDEX graph_nodes_file_id ON graph_nodes(file_id);
CREATE INDEX graph_nodes_label ON graph_nodes(label);

CREATE TABLE graph_edges (
  id         INTEGER PRIMARY KEY,
  source_id  INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
  target_id  INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
  edge_type  TEXT NOT NULL,
  confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  extractor  TEXT NOT NULL,                  -- e.g. ts/resolve, py/resolve, md/link, manifest/npm
  line       INTEGER,
  col        INTEGER,
  file_id    INTEGER REFERENCES graph_files(id) ON DELETE CASCADE  -- the file whose extraction made it
) STRICT;
-- Neighbour lookups by direction and type (context, references, impact, path) stay index-only.
CREATE INDEX graph_edges_source ON graph_edges(source_id, edge_type, target_id);
CREATE INDEX graph_edges_target ON graph_edges(target_id, edge_type, source_id);
CREATE INDEX graph_edges_type ON graph_edges(edge_type);
CREATE INDEX graph_edges_file ON graph_edges(file_id);

-- One row: what every graph answer reports as freshness.
CREATE TABLE graph_state (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  generation      INTEGER NOT NULL DEFAULT 0,
  last_indexed_at INTEGER,                   -- ms since epoch of the last completed pass
  files_pending   INTEGER NOT NULL DEFAULT 0,
  indexing        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  stats           TEXT                       -- JSON of the last pass (files, nodes, edges, duration)
) STRICT;
INSERT INTO graph_state (id) VALUES (1);

-- Fuzzy lookup over labels and qualified names. `terms` holds the camelCase/PascalCase words split
-- apart (snake_case already splits under unicode61); rowid = graph_nodes.id. Rows are inserted by the
-- indexer (the split is done in JS); the trigger keeps deletions, including cascades, in step.
CREATE VIRTUAL TABLE graph_fts USING fts5(
  label, qualified_name, terms,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 3'
);
CREATE TRIGGER graph_nodes_fts_delete AFTER DELETE ON graph_nodes BEGIN
  DELETE FROM graph_fts WHERE rowid = old.id;
END;
