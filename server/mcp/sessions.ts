// MCP sessions over Streamable HTTP: one transport, one Server and one ToolCalls per Mcp-Session-Id. Idle
// sessions are evicted, and so is the longest idle one when a new session would pass the cap (clients
// that never close their sessions would otherwise grow the hub without end); modules changing sends
// notifications/tools/list_changed to every session.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Hub } from '../hub.ts';
import type { McpSessionCounts } from '../hub-status.ts';
import { PROFILES, type ToolProfile } from '../tools/profiles.ts';
import { ToolListings } from './listing.ts';
import { createMcpServer } from './server.ts';
import { ToolCalls } from './tools-call.ts';
import { NodeStreamableTransport } from './transport.ts';

export interface McpSession {
  id: string;
  transport: NodeStreamableTransport;
  server: Server;
  createdAt: number;
  lastActivityAt: number;
}

export interface SessionInfo {
  id: string;
  createdAt: number;
  lastActivityAt: number;
  clientName?: string;
  clientVersion?: string;
}

type EndReason = 'deleted' | 'evicted' | 'closed' | 'over the session limit';

export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  /** tools/list, serialised once per profile and module change, for every session of this hub. */
  readonly listings: ToolListings;
  /** Called when a session ends (deleted, evicted or closed with the hub). */
  onEnded: ((info: SessionInfo, reason: EndReason) => void) | undefined;
  private evictedIdle = 0;
  private evictedOverLimit = 0;

  constructor(
    private readonly hub: Hub,
    private readonly idleMs: number,
    private readonly limit: number = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {
    this.listings = new ToolListings(hub.registry, hub.modules);
    this.sweeper = setInterval(() => this.evictIdle(), Math.min(60_000, Math.max(1_000, idleMs / 4)));
    this.sweeper.unref();
    this.unsubscribe = hub.modules.onChange(() => {
      for (const s of this.sessions.values()) s.server.sendToolListChanged().catch(() => {});
    });
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Whether the session exists, without counting as its activity. */
  has(id: string): boolean {
    return this.sessions.has(id);
  }

  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) {
      session.lastActivityAt = this.now();
      this.hub.sessions.touched(id, session.server.getClientVersion());
    }
    return session;
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => this.info(s));
  }

  private info(s: McpSession): SessionInfo {
    const client = s.server.getClientVersion();
    return {
      id: s.id,
      createdAt: s.createdAt,
      lastActivityAt: s.lastActivityAt,
      ...(client ? { clientName: client.name, clientVersion: client.version } : {}),
    };
  }

  /**
   * A transport for an initialize request; it joins the table once the SDK has assigned its session id.
   * `profile` is the tool surface the session asked for on the URL, fixed for its lifetime.
   */
  async create(profile: ToolProfile = PROFILES.all): Promise<NodeStreamableTransport> {
    const server = createMcpServer();
    const transport: NodeStreamableTransport = new NodeStreamableTransport({
      sessionIdGenerator: () => randomUUID(),
      intercept: (message) => toolCalls.intercept(message),
      onsessioninitialized: (id) => {
        while (this.sessions.size >= this.limit) this.evictLongestIdle();
        const at = this.now();
        this.sessions.set(id, { id, transport, server, createdAt: at, lastActivityAt: at });
        // The client's name arrives with initialize; it is known by the time its first call is recorded.
        this.hub.sessions.started(id, server.getClientVersion());
      },
      onsessionclosed: (id) => this.end(id, 'deleted'),
    });
    const toolCalls = new ToolCalls(this.hub, server, transport, this.listings, profile);
    transport.onclose = () => {
      if (transport.sessionId) this.end(transport.sessionId, 'closed');
    };
    await server.connect(transport);
    return transport;
  }

  /** Counts for cos_health: open against the cap, and how many were closed by each rule since start. */
  counts(): McpSessionCounts {
    return {
      open: this.sessions.size,
      limit: Number.isFinite(this.limit) ? this.limit : 0,
      evicted_over_limit: this.evictedOverLimit,
      evicted_idle: this.evictedIdle,
    };
  }

  private evictLongestIdle(): void {
    let oldest: McpSession | undefined;
    // Map order is creation order, not activity: look at every one (only at the cap, a few hundred).
    for (const s of this.sessions.values())
      if (!oldest || s.lastActivityAt < oldest.lastActivityAt) oldest = s;
    if (!oldest) return;
    this.evictedOverLimit++;
    this.hub.logger.warn(
      { scope: 'mcp', session: oldest.id, limit: this.limit },
      'MCP session limit reached: closed the longest idle session for a new one (COS_MCP_MAX_SESSIONS)',
    );
    this.end(oldest.id, 'over the session limit');
  }

  private end(id: string, reason: EndReason): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.hub.sessions.ended(id, reason);
    this.onEnded?.(this.info(session), reason);
    // Closing the server closes the transport and every stream still open on it.
    session.server.close().catch(() => {});
  }

  evictIdle(): number {
    const cutoff = this.now() - this.idleMs;
    let evicted = 0;
    for (const session of [...this.sessions.values()]) {
      if (session.lastActivityAt < cutoff) {
        this.end(session.id, 'evicted');
        this.evictedIdle++;
        evicted++;
      }
    }
    return evicted;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    this.unsubscribe();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) this.hub.sessions.ended(s.id, 'hub closed');
    await Promise.allSettled(all.map((s) => s.server.close()));
  }
}
