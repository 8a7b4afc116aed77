-- Kernel tables: key/value facts the hub keeps about itself.
CREATE TABLE hub_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
