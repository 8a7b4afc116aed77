// Who made a tool call (and to which tool), as the face that received it (MCP, REST, the hub itself) tells the tools and
// observability.
export interface CallerInfo {
  transport: 'mcp' | 'rest' | 'internal';
  /** MCP session id (Mcp-Session-Id), when the call came over MCP. */
  mcpSessionId?: string;
  clientName?: string;
  clientVersion?: string;
  /**
   * A read of the hub's own web page (a REST GET sent with `X-Cos-Background: 1`; the page sends it on
   * every read): the page drawing itself is nobody's work, so it is neither recorded as a tool call nor
   * counted as use of the project.
   */
  background?: boolean;
}

/** The tool a call went to, as far as recording it needs: its name and the module that serves it. */
export interface CalledTool {
  name: string;
  module: string;
}
