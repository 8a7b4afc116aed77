// The messages waiting to enter their recipients' contexts, in memory: what a hook answer reads, so the
// check costs a map lookup and never a query (in a team, never the network). Fed by this hub's sends, by
// the other hubs' through the team feed, and at start by the store's undelivered messages; a message
// leaves it when it is delivered (here, or by the hub its recipient reports to) or acked.
import type { MessageRow } from './port.ts';

/** Messages held at most; past it the oldest leave (they stay in the inbox: cos_inbox lists them). */
export const PENDING_LIMIT = 5000;
/** Deliveries and acks remembered, so a message announced late (the feed) is not held again. */
const SETTLED_LIMIT = 50_000;

const key = (recipient: string, id: string) => `${recipient}\n${id}`;

export class PendingMessages {
  private readonly byRecipient = new Map<string, Map<string, MessageRow>>();
  private readonly settled = new Set<string>();
  private count = 0;

  /** Holds `message` for `recipient` unless it was delivered or acked already. */
  add(recipient: string, message: MessageRow): void {
    if (this.settled.has(key(recipient, message.id))) return;
    let list = this.byRecipient.get(recipient);
    if (!list) {
      list = new Map();
      this.byRecipient.set(recipient, list);
    }
    if (list.has(message.id)) return;
    list.set(message.id, message);
    if (++this.count > PENDING_LIMIT) this.dropOldest();
  }

  /** Whether anything waits for `recipient` (the common case, nothing, costs one lookup). */
  has(recipient: string): boolean {
    return (this.byRecipient.get(recipient)?.size ?? 0) > 0;
  }

  /** What waits for `recipient`, urgent first, then oldest first; only urgent ones with urgentOnly. */
  list(recipient: string, urgentOnly: boolean): MessageRow[] {
    const list = this.byRecipient.get(recipient);
    if (!list) return [];
    const out = [...list.values()].filter((m) => !urgentOnly || m.urgent);
    return out.sort(
      (a, b) => Number(b.urgent) - Number(a.urgent) || a.created_at - b.created_at || (a.id < b.id ? -1 : 1),
    );
  }

  /** Takes these messages out for good (delivered or acked), here or on another hub. */
  settle(recipient: string, ids: readonly string[]): void {
    const list = this.byRecipient.get(recipient);
    for (const id of ids) {
      this.settled.add(key(recipient, id));
      if (list?.delete(id)) this.count--;
    }
    if (list && list.size === 0) this.byRecipient.delete(recipient);
    while (this.settled.size > SETTLED_LIMIT)
      this.settled.delete(this.settled.values().next().value as string);
  }

  /** Forgets messages created before `cutoff` (retention took them from the store). */
  prune(cutoff: number): void {
    for (const [recipient, list] of this.byRecipient) {
      for (const [id, m] of list)
        if (m.created_at < cutoff) {
          list.delete(id);
          this.count--;
        }
      if (list.size === 0) this.byRecipient.delete(recipient);
    }
  }

  get size(): number {
    return this.count;
  }

  private dropOldest(): void {
    let oldest: { recipient: string; m: MessageRow } | undefined;
    for (const [recipient, list] of this.byRecipient) {
      const first = list.values().next().value as MessageRow | undefined;
      if (first && (!oldest || first.created_at < oldest.m.created_at)) oldest = { recipient, m: first };
    }
    if (!oldest) return;
    const list = this.byRecipient.get(oldest.recipient)!;
    list.delete(oldest.m.id);
    this.count--;
    if (list.size === 0) this.byRecipient.delete(oldest.recipient);
  }
}
