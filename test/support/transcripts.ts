// Transcript lines as the clients write them, for the cost tests (server/costs/): a Claude Code
// assistant line carries its message's usage on every content block's line.

export interface ClaudeUsage {
  input: number;
  output: number;
  cw?: number;
  cr?: number;
}

/** One assistant line of a Claude Code transcript (`~/.claude/projects/<project>/<session>.jsonl`). */
export function claudeLine(o: {
  id: string;
  at: string;
  usage: ClaudeUsage;
  session?: string;
  model?: string;
  block?: unknown;
}): string {
  const { id, at, usage } = o;
  return `${JSON.stringify({
    parentUuid: `p-${id}`,
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/repo',
    sessionId: o.session ?? 'c1a2b3c4-0000-4000-8000-00000000000a',
    version: '2.0.37',
    gitBranch: 'main',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: o.model ?? 'claude-sonnet-4-5-20250929',
      content: [o.block ?? { type: 'text', text: 'Working on it.' }],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cw ?? 0,
        cache_read_input_tokens: usage.cr ?? 0,
        cache_creation: { ephemeral_5m_input_tokens: usage.cw ?? 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: usage.output,
        service_tier: 'standard',
      },
    },
    requestId: `req_${id}`,
    type: 'assistant',
    uuid: `u-${id}-${Math.random().toString(36).slice(2)}`,
    timestamp: at,
  })}\n`;
}
