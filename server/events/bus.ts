// The hub's in-process event bus: domain code publishes, the live stream (SSE) and MCP notifications
// subscribe. Every event gets a monotonically increasing id and is kept in a bounded ring buffer so a
// reconnecting client can ask for what it missed (Last-Event-ID) or learn that it must resync.

export const HUB_EVENT_TYPES = [
  'task-updated',
  'presence-updated',
  'tool-called',
  'index-progress',
  'module-changed',
  'log-warning',
  'agent-event',
  'agent-conflict',
  'memory-updated',
  'reservation-updated',
  'message-created',
  'message-acked',
  'message-delivered',
  'usage-recorded',
] as const;
export type HubEventType = (typeof HUB_EVENT_TYPES)[number];

export interface HubEvent<T = unknown> {
  id: number;
  type: HubEventType;
  /** Milliseconds since the epoch. */
  at: number;
  data: T;
}

export type Listener = (event: HubEvent) => void;

export class EventBus {
  private nextId = 1;
  // A ring: `start` is the oldest event's slot. Array.shift() on a full buffer would copy it on every
  // publish, and publish runs once per tool call.
  private readonly ring: (HubEvent | undefined)[];
  private start = 0;
  private size = 0;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly capacity = 1000) {
    this.ring = new Array<HubEvent | undefined>(capacity);
  }

  publish<T>(type: HubEventType, data: T): HubEvent<T> {
    const event: HubEvent<T> = { id: this.nextId++, type, at: Date.now(), data };
    if (this.size < this.capacity) {
      this.ring[(this.start + this.size) % this.capacity] = event;
      this.size++;
    } else {
      this.ring[this.start] = event;
      this.start = (this.start + 1) % this.capacity;
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing subscriber must never break the publisher; subscribers log their own errors.
      }
    }
    return event;
  }

  /** Returns a function that unsubscribes. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** The buffered events, oldest first. */
  private buffered(from = 0): HubEvent[] {
    const out: HubEvent[] = [];
    for (let i = from; i < this.size; i++) out.push(this.ring[(this.start + i) % this.capacity]!);
    return out;
  }

  /** Events after `lastId`, or null when some of them have already left the buffer (the client must resync). */
  since(lastId: number): HubEvent[] | null {
    // An id this bus never issued comes from before a hub restart: the client must resync.
    if (lastId > this.lastId) return null;
    if (this.size === 0) return [];
    const oldest = this.ring[this.start]!;
    if (lastId < oldest.id - 1) return null;
    // Ids are consecutive, so the first event after lastId sits at a known offset.
    return this.buffered(Math.max(0, lastId - oldest.id + 1));
  }

  recent(limit: number): HubEvent[] {
    return this.buffered(Math.max(0, this.size - limit));
  }

  get lastId(): number {
    return this.nextId - 1;
  }
}
