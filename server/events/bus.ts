// The hub's in-process event bus: domain code publishes, the live stream (SSE) and MCP notifications
// subscribe. Every event gets a monotonically increasing id and is kept in a bounded ring buffer so a
// reconnecting client can ask for what it missed (Last-Event-ID) or learn that it must resync.

export type HubEventType =
  | 'task-updated'
  | 'presence-updated'
  | 'tool-called'
  | 'index-progress'
  | 'module-changed'
  | 'log-warning';

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
  private readonly buffer: HubEvent[] = [];
  private readonly listeners = new Set<Listener>();

  constructor(private readonly capacity = 1000) {}

  publish<T>(type: HubEventType, data: T): HubEvent<T> {
    const event: HubEvent<T> = { id: this.nextId++, type, at: Date.now(), data };
    this.buffer.push(event);
    if (this.buffer.length > this.capacity) this.buffer.shift();
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

  /** Events after `lastId`, or null when some of them have already left the buffer (the client must resync). */
  since(lastId: number): HubEvent[] | null {
    const oldest = this.buffer[0];
    if (oldest === undefined) return lastId >= this.nextId - 1 ? [] : null;
    if (lastId < oldest.id - 1) return null;
    return this.buffer.filter((e) => e.id > lastId);
  }

  recent(limit: number): HubEvent[] {
    return this.buffer.slice(-limit);
  }

  get lastId(): number {
    return this.nextId - 1;
  }
}
