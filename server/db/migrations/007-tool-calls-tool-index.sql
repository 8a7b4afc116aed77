-- cos_metrics answers from its incremental window (rows by id, and by `at`), and the scan it falls back
-- to for a window of more than 200,000 calls reads by `at` too. The (tool, at) index was one more
-- b-tree insert for every recorded call, on the writer thread that competes with the hub for the cores.
DROP INDEX IF EXISTS tool_calls_tool_at;
