// Hook events and hook sessions in SQLite. Events arrive at hundreds a second from many agents, so rows
// are buffered and written in one transaction per turn of a short timer (or when the buffer fills);
// every read flushes first, so a query always sees what was acknowledged. Retention matches tool calls.
// With a team (server/agents/team.ts) the other machines' agents are kept here too, each with its machine
// and branch; this hub's own rows store machine NULL and read back as its machine. The other machines'
// events are the team's (PostgreSQL keeps them): this hub holds the latest REMOTE_LIMIT of them in memory
// only, numbered from the same counter as its own, so every read merges both in one order with one cursor
// and a hub of eight does not write seven other hubs' events to its disk.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.ts';
import type { EventKind, HookClient, Phase } from './normalize.ts';

export interface StoredFile {
  path: string;
  role: 'edit' | 'read';
}

export interface HookEventRow {
  id: number;
  at: number;
  agent: string;
  client: HookClient;
  event: string;
  kind: EventKind;
  phase: Phase | null;
  tool: string | null;
  ok: boolean | null;
  summary: string;
  files: StoredFile[];
  detail: Record<string, unknown>;
  /** The machine whose hub the agent reported to (this hub's machine for its own agents). */
  machine: string;
  /** The branch that hub's clone had checked out; null when the hub is not in a team. */
  branch: string | null;
}

export interface AgentSessionRow {
  id: string;
  client: HookClient;
  model: string | null;
  cwd: string | null;
  started_at: number;
  last_event_at: number;
  activity: string | null;
  events: number;
  ended_at: number | null;
  end_reason: string | null;
  /** Another machine's agent (null: this hub's own). */
  machine: string | null;
  branch: string | null;
}

export interface EventFilter {
  agent?: string | undefined;
  since?: number | undefined;
  kinds?: readonly EventKind[] | undefined;
  /** Only events naming this path (repository-relative or absolute, as stored). */
  path?: string | undefined;
  failed?: boolean | undefined;
  /** Events with an id below this one (the cursor of the previous page). */
  beforeId?: number | undefined;
  /** Only events of agents on this machine. */
  machine?: string | undefined;
  limit: number;
}

export interface FileTouch {
  path: string;
  agent: string;
  role: 'edit' | 'read';
  last_at: number;
  times: number;
}

const FLUSH_MS = 25;
const FLUSH_ROWS = 256;
/** Other machines' events held in memory (the newest; the team's database has them all). */
export const REMOTE_LIMIT = 20_000;

export class HookStore {
  private pending: HookEventRow[] = [];
  /** Other machines' events, oldest first (ids ascending). */
  private remote: HookEventRow[] = [];
  private dirtySessions = new Map<string, AgentSessionRow>();
  private timer: NodeJS.Timeout | undefined;
  private nextId: number;
  private readonly insertEvent;
  private readonly insertFile;
  private readonly upsertSession;
  private selectSession: Statement<[string]> | undefined;

  /** @param machine this hub's machine, what its own rows (machine NULL) read back as. */
  constructor(
    private readonly db: Db,
    readonly machine: string,
  ) {
    // Ids are assigned here, not by SQLite, so an event can be streamed (with its id) before its row is written.
    this.nextId = ((db.prepare('SELECT max(id) FROM hook_events').pluck().get() as number | null) ?? 0) + 1;
    this.insertEvent = db.prepare(
      `INSERT INTO hook_events (id, at, agent, client, event, kind, phase, tool, ok, summary, detail, branch)
       VALUES (@id, @at, @agent, @client, @event, @kind, @phase, @tool, @ok, @summary, @detail, @branch)`,
    );
    this.insertFile = db.prepare(
      'INSERT OR IGNORE INTO hook_event_files (path, event_id, agent, at, role) VALUES (?, ?, ?, ?, ?)',
    );
    this.upsertSession = db.prepare(
      `INSERT INTO agent_sessions (id, client, model, cwd, started_at, last_event_at, activity, events, ended_at, end_reason, machine, branch)
       VALUES (@id, @client, @model, @cwd, @started_at, @last_event_at, @activity, @events, @ended_at, @end_reason, @machine, @branch)
       ON CONFLICT (id) DO UPDATE SET client = excluded.client, model = excluded.model, cwd = excluded.cwd,
         last_event_at = excluded.last_event_at, activity = excluded.activity, events = excluded.events,
         ended_at = excluded.ended_at, end_reason = excluded.end_reason, machine = excluded.machine,
         branch = excluded.branch`,
    );
  }

  /** Queues one of this hub's events; returns its id at once (the row is written within FLUSH_MS). */
  add(row: Omit<HookEventRow, 'id'>): number {
    const id = this.nextId++;
    this.pending.push({ ...row, id });
    if (this.pending.length >= FLUSH_ROWS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
    return id;
  }

  /**
   * Keeps another machine's event in memory (not written: the team's database holds it) and numbers it
   * among this hub's own; returns that id. The caller keeps an event that arrives twice once.
   */
  addRemote(row: Omit<HookEventRow, 'id'>): number {
    const id = this.nextId++;
    this.remote.push({ ...row, id });
    // Dropped in chunks, so the array is not shifted on every event past the limit.
    if (this.remote.length > REMOTE_LIMIT * 1.25) this.remote = this.remote.slice(-REMOTE_LIMIT);
    return id;
  }

  /** Queues the session's current state to be written with the next batch. */
  saveSession(session: AgentSessionRow): void {
    const {
      id,
      client,
      model,
      cwd,
      started_at,
      last_event_at,
      activity,
      events,
      ended_at,
      end_reason,
      machine,
      branch,
    } = session;
    this.dirtySessions.set(id, {
      id,
      client,
      model,
      cwd,
      started_at,
      last_event_at,
      activity,
      events,
      ended_at,
      end_reason,
      machine,
      branch,
    });
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0 && this.dirtySessions.size === 0) return;
    const rows = this.pending;
    const sessions = [...this.dirtySessions.values()];
    this.pending = [];
    this.dirtySessions.clear();
    this.db.transaction(() => {
      for (const s of sessions) this.upsertSession.run(s);
      for (const row of rows) {
        const id = row.id;
        this.insertEvent.run({
          id,
          at: row.at,
          agent: row.agent,
          client: row.client,
          event: row.event,
          kind: row.kind,
          phase: row.phase,
          tool: row.tool,
          ok: row.ok === null ? null : row.ok ? 1 : 0,
          summary: row.summary,
          detail: JSON.stringify(row.files.length ? { ...row.detail, files: row.files } : row.detail),
          branch: row.branch,
        });
        for (const f of row.files) this.insertFile.run(f.path, id, row.agent, row.at, f.role);
      }
    })();
  }

  /** Events newest first: this hub's (SQLite) and the other machines' held in memory, in one order. */
  events(f: EventFilter): HookEventRow[] {
    const own = f.machine === undefined || f.machine === this.machine ? this.storedEvents(f) : [];
    const remote = this.remoteEvents(f);
    if (remote.length === 0) return own;
    const out: HookEventRow[] = [];
    let i = 0;
    let j = 0;
    while (out.length < f.limit && (i < own.length || j < remote.length)) {
      const a = own[i];
      const b = remote[j];
      if (b === undefined || (a !== undefined && a.id > b.id)) {
        out.push(a as HookEventRow);
        i++;
      } else {
        out.push(b);
        j++;
      }
    }
    return out;
  }

  /** The other machines' events in memory that pass the filter, newest first, at most f.limit. */
  private remoteEvents(f: EventFilter): HookEventRow[] {
    const out: HookEventRow[] = [];
    if (f.machine === this.machine) return out;
    const kinds = f.kinds && f.kinds.length > 0 ? new Set<string>(f.kinds) : undefined;
    for (let k = this.remote.length - 1; k >= 0 && out.length < f.limit; k--) {
      const e = this.remote[k] as HookEventRow;
      if (f.beforeId !== undefined && e.id >= f.beforeId) continue;
      if (f.since !== undefined && e.at < f.since) continue;
      if (f.agent !== undefined && e.agent !== f.agent) continue;
      if (f.machine !== undefined && e.machine !== f.machine) continue;
      if (kinds && !kinds.has(e.kind)) continue;
      if (f.failed !== undefined && e.ok !== !f.failed) continue;
      if (f.path !== undefined && !e.files.some((x) => x.path === f.path)) continue;
      out.push(e);
    }
    return out;
  }

  private storedEvents(f: EventFilter): HookEventRow[] {
    this.flush();
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (f.agent !== undefined) {
      where.push('e.agent = ?');
      args.push(f.agent);
    }
    if (f.since !== undefined) {
      where.push('e.at >= ?');
      args.push(f.since);
    }
    if (f.beforeId !== undefined) {
      where.push('e.id < ?');
      args.push(f.beforeId);
    }
    if (f.kinds && f.kinds.length > 0) {
      where.push(`e.kind IN (${f.kinds.map(() => '?').join(', ')})`);
      args.push(...f.kinds);
    }
    if (f.failed !== undefined) where.push(f.failed ? 'e.ok = 0' : 'e.ok = 1');
    if (f.machine !== undefined) {
      // This hub's own rows keep machine NULL.
      where.push(f.machine === this.machine ? '(e.machine IS NULL OR e.machine = ?)' : 'e.machine = ?');
      args.push(f.machine);
    }
    if (f.path !== undefined) {
      where.push('e.id IN (SELECT event_id FROM hook_event_files WHERE path = ?)');
      args.push(f.path);
    }
    const sql = `SELECT e.* FROM hook_events e ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY e.id DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...args, f.limit) as {
      id: number;
      at: number;
      agent: string;
      client: HookClient;
      event: string;
      kind: EventKind;
      phase: Phase | null;
      tool: string | null;
      ok: number | null;
      summary: string;
      detail: string;
      machine: string | null;
      branch: string | null;
      origin: string | null;
    }[];
    return rows.map(({ origin: _origin, ...r }) => {
      const detail = JSON.parse(r.detail) as Record<string, unknown> & { files?: StoredFile[] };
      const files = detail.files ?? [];
      delete detail.files;
      return {
        ...r,
        ok: r.ok === null ? null : r.ok === 1,
        files,
        detail,
        machine: r.machine ?? this.machine,
      };
    });
  }

  /** Who touched which files: per (path, agent, role) the latest time and how often, newest first. */
  touches(f: {
    agent?: string;
    path?: string;
    since?: number;
    role?: 'edit' | 'read';
    limit: number;
  }): FileTouch[] {
    const stored = this.storedTouches(f);
    if (this.remote.length === 0) return stored;
    const byKey = new Map<string, FileTouch>();
    for (const t of stored) byKey.set(`${t.path}\0${t.agent}\0${t.role}`, t);
    for (const e of this.remote) {
      if ((f.agent !== undefined && e.agent !== f.agent) || (f.since !== undefined && e.at < f.since))
        continue;
      for (const x of e.files) {
        if ((f.path !== undefined && x.path !== f.path) || (f.role !== undefined && x.role !== f.role))
          continue;
        const key = `${x.path}\0${e.agent}\0${x.role}`;
        const t = byKey.get(key);
        if (t) {
          t.times++;
          if (e.at > t.last_at) t.last_at = e.at;
        } else byKey.set(key, { path: x.path, agent: e.agent, role: x.role, last_at: e.at, times: 1 });
      }
    }
    return [...byKey.values()].sort((a, b) => b.last_at - a.last_at).slice(0, f.limit);
  }

  private storedTouches(f: {
    agent?: string;
    path?: string;
    since?: number;
    role?: 'edit' | 'read';
    limit: number;
  }): FileTouch[] {
    this.flush();
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (f.agent !== undefined) {
      where.push('agent = ?');
      args.push(f.agent);
    }
    if (f.path !== undefined) {
      where.push('path = ?');
      args.push(f.path);
    }
    if (f.since !== undefined) {
      where.push('at >= ?');
      args.push(f.since);
    }
    if (f.role !== undefined) {
      where.push('role = ?');
      args.push(f.role);
    }
    return this.db
      .prepare(
        `SELECT path, agent, role, max(at) AS last_at, count(*) AS times FROM hook_event_files
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY path, agent, role ORDER BY last_at DESC LIMIT ?`,
      )
      .all(...args, f.limit) as FileTouch[];
  }

  sessions(opts: { endedSince?: number; limit: number }): AgentSessionRow[] {
    this.flush();
    return this.db
      .prepare(
        `SELECT * FROM agent_sessions WHERE ended_at IS NULL OR ended_at >= ? ORDER BY last_event_at DESC LIMIT ?`,
      )
      .all(opts.endedSince ?? 0, opts.limit) as AgentSessionRow[];
  }

  session(id: string): AgentSessionRow | undefined {
    this.flush();
    // Prepared once: a sweep asks it of every claim in progress.
    this.selectSession ??= this.db.prepare('SELECT * FROM agent_sessions WHERE id = ?');
    return this.selectSession.get(id) as AgentSessionRow | undefined;
  }

  /** Deletes events older than maxAgeMs or beyond maxRows, and sessions that ended before the cutoff. */
  applyRetention(now: number, retention: { maxAgeMs: number; maxRows: number }): number {
    this.flush();
    const cutoff = now - retention.maxAgeMs;
    const maxId = (this.db.prepare('SELECT max(id) FROM hook_events').pluck().get() as number | null) ?? 0;
    const floor = Math.max(0, maxId - retention.maxRows);
    return this.db.transaction(() => {
      let n = this.db.prepare('DELETE FROM hook_events WHERE at < ? OR id <= ?').run(cutoff, floor).changes;
      n += this.db
        .prepare('DELETE FROM hook_event_files WHERE at < ? OR event_id <= ?')
        .run(cutoff, floor).changes;
      n += this.db
        .prepare('DELETE FROM agent_sessions WHERE ended_at IS NOT NULL AND ended_at < ?')
        .run(cutoff).changes;
      return n;
    })();
  }

  close(): void {
    this.flush();
  }
}
