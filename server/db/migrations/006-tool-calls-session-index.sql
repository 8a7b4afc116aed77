-- No query reads tool_calls by MCP session (presence keeps its own row per session in mcp_sessions), and
-- every index is one more b-tree insert for each recorded call.
DROP INDEX IF EXISTS tool_calls_session;
