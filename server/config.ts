// Configuration: environment first, flags override. Every CLI command and the running hub read the same
// values, so they agree on which repository and state directory they mean.
import { hostname } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { type TranscriptRoots, transcriptRoots } from './costs/folders.ts';
import { defaultHome } from './projects/registry.ts';
import { DEFAULT_SEARCH_BUDGET_MS } from './search/budget.ts';
import { loadTelemetrySettings, type TelemetrySettings } from './telemetry/settings.ts';

export interface Config {
  port: number;
  host: string;
  /** Absolute path of the repository the hub serves. */
  repo: string;
  /** Absolute path of the hub's state: hub.db, .mcp.log, subsystems-state.json, agent bundles. */
  stateDir: string;
  /** The user's cos directory (COS_HOME): the registry of projects one hub serves. */
  home: string;
  tasksDir: string;
  agentDir: string;
  /** Bearer token; required when binding anything but loopback. */
  token: string | undefined;
  /** Idle MCP sessions are closed after this many milliseconds. */
  mcpSessionIdleMs: number;
  /** Open MCP sessions at most; a new one beyond it closes the longest idle (COS_MCP_MAX_SESSIONS). */
  mcpMaxSessions: number;
  /**
   * A project whose tools nobody has called for this many milliseconds lets go of what it can rebuild
   * (COS_PROJECT_IDLE_MINUTES); 0: never.
   */
  projectIdleMs: number;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  /** Milliseconds one search (per layer) may hold the thread before it answers `transient` (COS_SEARCH_BUDGET_MS). */
  searchBudgetMs: number;
  /** A request (headers and body) must arrive within this many milliseconds (COS_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  logLevel: string;
  /** How long a write waits for another writer's lock before answering `transient` (COS_DB_BUSY_TIMEOUT_MS). */
  dbBusyTimeoutMs: number;
  /** Record every tool call (metrics, timeline, tool-called events). COS_RECORD_CALLS=0 turns it off. */
  recordCalls: boolean;
  /** The OpenTelemetry export, from the standard OTEL_* variables (server/telemetry/settings.ts): off without an endpoint. */
  telemetry: TelemetrySettings;
  /** Requests per second (sustained, and the burst allowed on top) per MCP session or remote address. */
  rateLimit: { perSecond: number; burst: number };
  /** Tool calls, log events and ended sessions older than this, or beyond the row cap, are deleted. */
  retention: { maxAgeMs: number; maxRows: number };
  /**
   * The team's PostgreSQL (COS_DATABASE_URL, --database-url): where claims, agents, hook events, memory
   * and tool calls are shared with every hub of the same repository. Unset: everything stays in hub.db.
   * Holds the password: print it only through redactUrl (server/team/url.ts).
   */
  databaseUrl: string | undefined;
  /** This machine's name in the team (COS_MACHINE, default the host name). */
  machine: string;
  /** The team's key when set (COS_TEAM_PROJECT); otherwise the normalised URL of the clone's origin. */
  teamProject: string | undefined;
  /**
   * The agents' own transcript folders, the only places usage is read from (server/costs/folders.ts):
   * CLAUDE_CONFIG_DIR, CODEX_HOME and HOME as the hub's environment has them.
   */
  transcriptRoots: TranscriptRoots;
}

export type Flags = Partial<
  Record<'port' | 'host' | 'repo' | 'state-dir' | 'tasks-dir' | 'agent-dir' | 'database-url', string>
>;

export const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

export class ConfigError extends Error {}

/** `path` relative to the repository with forward slashes, or null when it is not strictly inside it. */
export function insideRepo(repo: string, path: string): string | null {
  const rel = relative(repo, path).split(sep).join('/');
  return rel === '' || rel === '..' || rel.startsWith('../') || isAbsolute(rel) ? null : rel;
}

function positive(text: string | undefined, fallback: number): number {
  const n = Number(text);
  return text !== undefined && Number.isFinite(n) && n > 0 ? n : fallback;
}

/** About 45 KB each (2,000 grew the hub by 91 MB): 256 agents are more than one machine runs. */
export const DEFAULT_MAX_SESSIONS = 256;

/** Minutes without a tool call after which a project releases its caches (COS_PROJECT_IDLE_MINUTES). */
export const DEFAULT_PROJECT_IDLE_MINUTES = 10;

/** COS_MACHINE, else the host name: one line of printable text, at most 64 characters. */
function machineName(text: string | undefined): string {
  const name = (text?.trim() || hostname() || 'localhost').replace(/\p{Cc}/gu, '');
  if (name.length > 64)
    throw new ConfigError(`COS_MACHINE must be at most 64 characters, got ${name.length}`);
  return name;
}

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  flags: Flags = {},
  cwd = process.cwd(),
): Config {
  const pick = (flag: keyof Flags, name: string): string | undefined => {
    const v = flags[flag] ?? env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  const repo = resolve(cwd, pick('repo', 'COS_REPO') ?? '.');
  const under = (base: string, p: string | undefined, fallback: string) =>
    p === undefined ? resolve(base, fallback) : isAbsolute(p) ? p : resolve(cwd, p);
  const stateDir = under(repo, pick('state-dir', 'COS_STATE_DIR'), '.cos');
  const portText = pick('port', 'COS_PORT') ?? '9188';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`COS_PORT must be a port number from 0 to 65535, got "${portText}"`);
  }
  const host = pick('host', 'COS_HOST') ?? '127.0.0.1';
  const token = env.COS_HUB_TOKEN || undefined;
  if (!LOOPBACK_HOSTS.has(host) && !token) {
    throw new ConfigError(
      `binding ${host} exposes the hub beyond this machine: set COS_HUB_TOKEN to a secret first, or bind 127.0.0.1`,
    );
  }
  const idleMinutes = Number(env.COS_MCP_SESSION_IDLE_MINUTES ?? '30');
  const projectIdle = env.COS_PROJECT_IDLE_MINUTES;
  return {
    port,
    host,
    repo,
    stateDir,
    home: env.COS_HOME ? resolve(cwd, env.COS_HOME) : defaultHome(env),
    tasksDir: under(repo, pick('tasks-dir', 'COS_TASKS_DIR'), 'docs/tasks'),
    agentDir: under(stateDir, pick('agent-dir', 'COS_AGENT_DIR'), 'agents'),
    token,
    mcpSessionIdleMs: Number.isFinite(idleMinutes) && idleMinutes > 0 ? idleMinutes * 60_000 : 30 * 60_000,
    mcpMaxSessions: Math.max(1, Math.floor(positive(env.COS_MCP_MAX_SESSIONS, DEFAULT_MAX_SESSIONS))),
    projectIdleMs:
      projectIdle?.trim() === '0'
        ? 0
        : Math.round(positive(projectIdle, DEFAULT_PROJECT_IDLE_MINUTES) * 60_000),
    bodyLimitBytes: Number(env.COS_BODY_LIMIT_BYTES ?? 4 * 1024 * 1024),
    requestTimeoutMs: Math.round(positive(env.COS_REQUEST_TIMEOUT_MS, 30_000)),
    searchBudgetMs: Math.round(positive(env.COS_SEARCH_BUDGET_MS, DEFAULT_SEARCH_BUDGET_MS)),
    logLevel: env.COS_LOG_LEVEL ?? 'info',
    dbBusyTimeoutMs: Math.round(positive(env.COS_DB_BUSY_TIMEOUT_MS, 5000)),
    recordCalls: env.COS_RECORD_CALLS !== '0',
    telemetry: loadTelemetrySettings(env),
    rateLimit: {
      perSecond: env.COS_RATE_LIMIT_RPS === '0' ? 0 : positive(env.COS_RATE_LIMIT_RPS, 500),
      burst: positive(env.COS_RATE_LIMIT_BURST, 1000),
    },
    retention: {
      maxAgeMs: positive(env.COS_RETENTION_DAYS, 7) * 24 * 3600_000,
      maxRows: Math.round(positive(env.COS_RETENTION_ROWS, 200_000)),
    },
    databaseUrl: pick('database-url', 'COS_DATABASE_URL'),
    machine: machineName(env.COS_MACHINE),
    teamProject: env.COS_TEAM_PROJECT?.trim() || undefined,
    transcriptRoots: transcriptRoots(env),
  };
}
