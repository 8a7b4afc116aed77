// MCP sessions over Streamable HTTP: one transport, one Server and one ToolCalls per Mcp-Session-Id. Idle
// sessions are evicted; modules changing sends notifications/tools/list_changed to every session.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Hub } from '../hub.ts';
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

export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  /** tools/list, serialised once per profile and module change, for every session of this hub. */
  readonly listings: ToolListings;
  /** Called when a session ends (deleted, evicted or closed with the hub). */
  onEnded: ((info: SessionInfo, reason: 'deleted' | 'evicted' | 'closed') => void) | undefined;

  constructor(
    private readonly hub: Hub,
    private readonly idleMs: number,
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

  private end(id: string, reason: 'deleted' | 'evicted' | 'closed'): void {
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
