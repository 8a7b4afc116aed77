// What the hub knows about its own condition beyond the database's contents, for cos_health: whether
// .mcp.log is being written, whether hub.db is still the file it opened, how many MCP sessions are open
// against their cap. Each part sets its own entry; cos_health lists every problem, each saying what to do.
import type { DatabaseFileGuard } from './db/file-guard.ts';
import type { LogFileState } from './log-file.ts';
import type { Team } from './team/team.ts';
import type { Telemetry } from './telemetry/telemetry.ts';

export interface McpSessionCounts {
  open: number;
  /** COS_MCP_MAX_SESSIONS: beyond it the longest idle session is closed for a new one. */
  limit: number;
  /** Sessions closed since start because the cap was reached. */
  evicted_over_limit: number;
  /** Sessions closed since start because they were idle too long. */
  evicted_idle: number;
}

export class HubStatus {
  log: LogFileState = { failing: null, dropped: 0 };
  /** Whether hub.db is still the sound file the hub opened (absent for a hub without one). */
  database: DatabaseFileGuard | undefined;
  mcpSessions: (() => McpSessionCounts) | undefined;
  /** The team on PostgreSQL, when the hub has one: its connection is one of the hub's conditions. */
  team: Team | undefined;
  /** The OpenTelemetry export, when one runs: a failing collector is one of the hub's conditions. */
  telemetry: Telemetry | undefined;

  /**
   * Why a call that changes something must not run now (hub.db deleted, replaced or damaged), saying what
   * to do; undefined when it may. A stat and a 16-byte read.
   */
  writesRefused(): string | undefined {
    return this.database?.problem();
  }

  /** SQLite said hub.db is damaged while serving a call: every change is refused from now on. */
  databaseDamaged(code: string): void {
    this.database?.damaged(code);
  }

  problems(): string[] {
    const out: string[] = [];
    const db = this.writesRefused();
    if (db) out.push(db);
    const team = this.team?.problem();
    if (team) out.push(team);
    const telemetry = this.telemetry?.problem();
    if (telemetry) out.push(telemetry);
    const mcp = this.mcpSessions?.();
    if (mcp && mcp.open >= mcp.limit)
      out.push(
        `${mcp.open} MCP sessions are open, COS_MCP_MAX_SESSIONS: each new session closes the longest idle one (${mcp.evicted_over_limit} so far); clients should end the sessions they are done with (DELETE /mcp), or raise the limit`,
      );
    if (this.log.failing !== null)
      out.push(
        `$COS_STATE_DIR/.mcp.log cannot be written (${this.log.failing}); ${this.log.dropped} log lines dropped so far: free space on the state directory's disk (or make it writable); the hub keeps answering meanwhile`,
      );
    return out;
  }
}

declare module './hub-services.ts' {
  interface HubServices {
    /** The hub's own condition (always present in a hub; absent in tool tests that build no hub). */
    status?: HubStatus;
  }
}
