// How a message names an agent: its client and a short id (`claude-code c1a0de00`), and in a team its
// machine when that is not this one (`claude-code c1a0de00 on machine-a`). A 36-character session id
// wraps on the Activity page and says less to a person than the client does; the short id is still
// enough to find the agent in the agents list, and messages that ask something of the agent quote the
// full id where a tool needs it. One place, so an edit conflict and a reservation name an agent alike.

/** Characters of the session id a label keeps (a UUID's first group). */
export const SHORT_ID_LENGTH = 8;

export function shortId(id: string): string {
  return id.length > SHORT_ID_LENGTH ? id.slice(0, SHORT_ID_LENGTH) : id;
}

/**
 * `claude-code c1a0de00`, plus ` on <machine>` when `machine` is given and is not `here` (another
 * machine's agent in a team). A client the hub does not know yet reads `agent`.
 */
export function agentLabel(
  agent: { client: string | null | undefined; id: string; machine?: string | null | undefined },
  here?: string | null,
): string {
  const client = agent.client && agent.client !== 'unknown' ? agent.client : 'agent';
  const where = agent.machine && agent.machine !== here ? ` on ${agent.machine}` : '';
  return `${client} ${shortId(agent.id)}${where}`;
}
