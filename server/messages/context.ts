// The text a hook answer puts into an agent's context for its waiting messages: a line to say what they
// are and how to ack and reply, then each message, within about 2 KB. What does not fit waits for the
// next event that can carry it ("N more: cos_inbox" says so); a first message longer than the whole
// bound is cut, and says where to read it whole.
import { HUMAN, type MessageRow } from './port.ts';

/** The most characters the messages add to one hook answer. */
export const CONTEXT_LIMIT_CHARS = 2048;
/** Room kept for the closing "N more" line. */
const MORE_LINE_CHARS = 120;
const CUT = '… (cut here: cos_inbox has it whole)';

export interface ContextText {
  text: string;
  /** The messages the text carries (the first one possibly cut). */
  included: MessageRow[];
  /** How many wait for a later event. */
  more: number;
}

/** How a sender is named: the client and machine the hub knows it by, and the id to reply to. */
export type SenderLabel = (sender: string) => string;

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

function entry(m: MessageRow, label: SenderLabel): { head: string; body: string } {
  const flags = m.urgent ? ' [urgent]' : '';
  const thread = m.thread_id === m.id ? 'new thread' : `thread ${m.thread_id}`;
  const to = m.addressed.startsWith('task:') || m.addressed === 'all' ? `, sent to ${m.addressed}` : '';
  const subject = m.subject ? `${m.subject}: ` : '';
  return {
    head: `- ${m.id}${flags} from ${label(m.sender)} at ${clock(m.created_at)} (${thread}${to}): ${subject}`,
    // Indented, so a line of the body never reads as the start of another message.
    body: m.body.replace(/\r?\n/g, '\n  '),
  };
}

/** The context for `messages` (urgent first, oldest first, as PendingMessages lists them), or null. */
export function contextFor(
  agentSession: string,
  messages: readonly MessageRow[],
  label: SenderLabel,
): ContextText | null {
  if (messages.length === 0) return null;
  const lead = `cos hub: ${messages.length === 1 ? 'a message' : `${messages.length} messages`} for you. Each stays in cos_inbox until you ack it (cos_message_ack {"agent_session":"${agentSession}","ids":[…]}); reply with cos_message_send {"agent_session":"${agentSession}","to":<its sender>,"thread_id":<its thread>}.`;
  const lines = [lead];
  let used = lead.length;
  const included: MessageRow[] = [];
  for (const m of messages) {
    const { head, body } = entry(m, label);
    const room = CONTEXT_LIMIT_CHARS - MORE_LINE_CHARS - used - 1;
    const whole = head.length + body.length;
    if (whole <= room) {
      lines.push(head + body);
      used += whole + 1;
      included.push(m);
      continue;
    }
    // Only the first message is cut to fit; any later one waits whole for the next event.
    if (included.length === 0 && room > head.length + CUT.length + 40) {
      const keep = room - head.length - CUT.length;
      lines.push(`${head}${body.slice(0, keep)}${CUT}`);
      used = CONTEXT_LIMIT_CHARS - MORE_LINE_CHARS;
      included.push(m);
    }
    break;
  }
  const more = messages.length - included.length;
  if (more > 0)
    lines.push(
      `${more} more: cos_inbox {"agent_session":"${agentSession}","unread_only":true} (they also come with your next events)`,
    );
  return { text: lines.join('\n'), included, more };
}

/** A sender as the context names it: a person, or an agent by client, short id and machine, then the id to reply to. */
export function senderLabel(
  sender: string,
  known: { client: string | null; machine: string | null } | undefined,
): string {
  if (sender === HUMAN) return 'a person on the hub\'s page (reply to "human")';
  const short = sender.length > 12 ? sender.slice(0, 8) : sender;
  const who = [known?.client, short].filter((s) => s && s !== 'unknown').join(' ');
  const where = known?.machine ? ` on ${known.machine}` : '';
  return who === sender ? `"${sender}"${where}` : `${who}${where} ("${sender}")`;
}
