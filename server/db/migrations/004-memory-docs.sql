-- Memory (what agents learned, findable by the next task) and the repository's docs, chunked for search.
-- Times are milliseconds since the epoch. JSON columns are checked so a bad write fails here, not in a reader.

-- Small columns first, long text last: a filter on type, confidence or age then reads the start of each row
-- and never the overflow pages a long narrative spills into.
CREATE TABLE observations (
  id               INTEGER PRIMARY KEY,
  memory_type      TEXT    NOT NULL CHECK (memory_type IN ('pattern', 'decision', 'pitfall', 'fact', 'preference')),
  confidence       REAL    NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  impact           TEXT    NOT NULL CHECK (impact IN ('low', 'medium', 'high', 'critical')),
  created_at       INTEGER NOT NULL,
  last_accessed_at INTEGER,
  access_count     INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
  -- How many exact duplicates were folded into this row.
  merged_count     INTEGER NOT NULL DEFAULT 0 CHECK (merged_count >= 0),
  -- '' rather than NULL when no session is known: NULLs are distinct in a UNIQUE key, so they would never merge.
  agent_session    TEXT    NOT NULL DEFAULT '',
  task_id          TEXT,
  content_hash     TEXT    NOT NULL,
  title            TEXT    NOT NULL,
  concepts         TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(concepts) AND json_type(concepts) = 'array'),
  files            TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(files) AND json_type(files) = 'array'),
  facts            TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(facts) AND json_type(facts) = 'array'),
  narrative        TEXT    NOT NULL DEFAULT '',
  UNIQUE (agent_session, content_hash)
) STRICT;

CREATE INDEX observations_created ON observations (created_at DESC);
CREATE INDEX observations_type_created ON observations (memory_type, created_at DESC);

-- Two indexes over the same text: unicode61 gives word matches with good bm25 for space-separated scripts
-- (Latin, Cyrillic, Arabic, Greek); trigram finds substrings, which is what CJK (no spaces) and clitic-prefixed
-- Arabic words need. The query planner (server/memory/fts-query.ts) picks one per query.
CREATE VIRTUAL TABLE observations_fts USING fts5(
  title, narrative, concepts,
  content = 'observations', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE observations_tri USING fts5(
  title, narrative, concepts,
  content = 'observations', content_rowid = 'id',
  tokenize = 'trigram'
);

-- bm25 weights stored with the index so `ORDER BY rank` uses them and FTS5 can sort inside the index:
-- a title hit counts three times a narrative hit, a concept twice.
INSERT INTO observations_fts (observations_fts, rank) VALUES ('rank', 'bm25(3.0, 1.0, 2.0)');
INSERT INTO observations_tri (observations_tri, rank) VALUES ('rank', 'bm25(3.0, 1.0, 2.0)');

CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN
  INSERT INTO observations_fts (rowid, title, narrative, concepts) VALUES (new.id, new.title, new.narrative, new.concepts);
  INSERT INTO observations_tri (rowid, title, narrative, concepts) VALUES (new.id, new.title, new.narrative, new.concepts);
END;
CREATE TRIGGER observations_ad AFTER DELETE ON observations BEGIN
  INSERT INTO observations_fts (observations_fts, rowid, title, narrative, concepts)
    VALUES ('delete', old.id, old.title, old.narrative, old.concepts);
  INSERT INTO observations_tri (observations_tri, rowid, title, narrative, concepts)
    VALUES ('delete', old.id, old.title, old.narrative, old.concepts);
END;
-- Only a change to indexed text touches the FTS tables: access bumps on every read must stay cheap.
CREATE TRIGGER observations_au AFTER UPDATE OF title, narrative, concepts ON observations BEGIN
  INSERT INTO observations_fts (observations_fts, rowid, title, narrative, concepts)
    VALUES ('delete', old.id, old.title, old.narrative, old.concepts);
  INSERT INTO observations_tri (observations_tri, rowid, title, narrative, concepts)
    VALUES ('delete', old.id, old.title, old.narrative, old.concepts);
  INSERT INTO observations_fts (rowid, title, narrative, concepts) VALUES (new.id, new.title, new.narrative, new.concepts);
  INSERT INTO observations_tri (rowid, title, narrative, concepts) VALUES (new.id, new.title, new.narrative, new.concepts);
END;

-- A forget leaves a trace of the act, not of the content: no title or narrative is kept.
CREATE TABLE observation_forgets (
  id             INTEGER PRIMARY KEY,
  observation_id INTEGER NOT NULL,
  content_hash   TEXT    NOT NULL,
  memory_type    TEXT    NOT NULL,
  agent_session  TEXT    NOT NULL,
  reason         TEXT    NOT NULL DEFAULT '',
  forgotten_by   TEXT    NOT NULL,
  forgotten_at   INTEGER NOT NULL
) STRICT;

CREATE INDEX observation_forgets_at ON observation_forgets (forgotten_at DESC);

-- One row per indexed document: what a file-level question (front matter, title, freshness) needs.
CREATE TABLE doc_files (
  path               TEXT    PRIMARY KEY,
  format             TEXT    NOT NULL CHECK (format IN ('markdown', 'rst', 'text')),
  doc_type           TEXT    NOT NULL,
  title              TEXT,
  front_matter       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(front_matter) AND json_type(front_matter) = 'object'),
  front_matter_error TEXT,
  mtime_ms           INTEGER NOT NULL,
  size               INTEGER NOT NULL,
  content_hash       TEXT    NOT NULL,
  chunk_count        INTEGER NOT NULL,
  indexed_at         INTEGER NOT NULL
) STRICT;

CREATE INDEX doc_files_type ON doc_files (doc_type);

CREATE TABLE doc_chunks (
  id           INTEGER PRIMARY KEY,
  path         TEXT    NOT NULL REFERENCES doc_files (path) ON DELETE CASCADE,
  chunk_index  INTEGER NOT NULL,
  -- Copied from doc_files so a type filter needs no join inside the FTS query.
  doc_type     TEXT    NOT NULL,
  anchor       TEXT,
  -- JSON array of the headings above this chunk, outermost first.
  heading_path TEXT    NOT NULL CHECK (json_valid(heading_path) AND json_type(heading_path) = 'array'),
  -- The same headings as one string, for FTS (weighted above body text).
  heading      TEXT    NOT NULL,
  -- Last, like narrative above: filters read the row's start only.
  text         TEXT    NOT NULL,
  UNIQUE (path, chunk_index)
) STRICT;

CREATE VIRTUAL TABLE doc_chunks_fts USING fts5(
  heading, text,
  content = 'doc_chunks', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE doc_chunks_tri USING fts5(
  heading, text,
  content = 'doc_chunks', content_rowid = 'id',
  tokenize = 'trigram'
);

-- A heading hit counts twice a body hit.
INSERT INTO doc_chunks_fts (doc_chunks_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0)');
INSERT INTO doc_chunks_tri (doc_chunks_tri, rank) VALUES ('rank', 'bm25(2.0, 1.0)');

CREATE TRIGGER doc_chunks_ai AFTER INSERT ON doc_chunks BEGIN
  INSERT INTO doc_chunks_fts (rowid, heading, text) VALUES (new.id, new.heading, new.text);
  INSERT INTO doc_chunks_tri (rowid, heading, text) VALUES (new.id, new.heading, new.text);
END;
CREATE TRIGGER doc_chunks_ad AFTER DELETE ON doc_chunks BEGIN
  INSERT INTO doc_chunks_fts (doc_chunks_fts, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
  INSERT INTO doc_chunks_tri (doc_chunks_tri, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
END;
CREATE TRIGGER doc_chunks_au AFTER UPDATE OF heading, text ON doc_chunks BEGIN
  INSERT INTO doc_chunks_fts (doc_chunks_fts, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
  INSERT INTO doc_chunks_tri (doc_chunks_tri, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
  INSERT INTO doc_chunks_fts (rowid, heading, text) VALUES (new.id, new.heading, new.text);
  INSERT INTO doc_chunks_tri (rowid, heading, text) VALUES (new.id, new.heading, new.text);
END;
