// Which hub serves this state directory right now. `cos serve` records its address in
// $COS_STATE_DIR/running-hub.json once it listens and removes it when it closes; every other command
// reads it, checks that the hub really answers there, and then asks that hub instead of changing the
// state under it (one truth: the running hub's). A file left by a hub that died is recognised as stale
// (its process is gone, or nothing answers at its address) and ignored; so is one that names an
// address off this machine.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, LOOPBACK_HOSTS } from '../config.ts';
import { type HubAnswer, hubRequest } from './hub-client.ts';

export const RUNNING_HUB_FILE = 'running-hub.json';

export interface RunningHubRecord {
  pid: number;
  /** Base URL, without a trailing slash: `http://127.0.0.1:9188`. */
  url: string;
  repo: string;
  started_at: string;
}

export interface RunningHub extends RunningHubRecord {
  /** Whether the hub took our token (or asked for none); false: it answered 401. */
  authorised: boolean;
}

function recordPath(config: Config): string {
  return join(config.stateDir, RUNNING_HUB_FILE);
}

export function writeRunningHub(config: Config, url: string): void {
  const record: RunningHubRecord = {
    pid: process.pid,
    url,
    repo: config.repo,
    started_at: new Date().toISOString(),
  };
  const file = recordPath(config);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, file);
}

/** Removes the record if it is this process's (a hub that lost a race must not delete the winner's). */
export function removeRunningHub(config: Config): void {
  if (readRecord(config)?.pid === process.pid) rmSync(recordPath(config), { force: true });
}

function readRecord(config: Config): RunningHubRecord | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(recordPath(config), 'utf8'));
  } catch {
    return undefined;
  }
  const r = parsed as Partial<RunningHubRecord>;
  if (typeof r.pid !== 'number' || typeof r.url !== 'string' || typeof r.repo !== 'string') return undefined;
  // The CLI sends COS_HUB_TOKEN to this address: only ever to this machine. A record naming anything
  // else (a repository can ship a .cos/ of its own) is not a hub of ours.
  if (!isLoopbackUrl(r.url)) return undefined;
  return { pid: r.pid, url: r.url, repo: r.repo, started_at: String(r.started_at ?? '') };
}

function isLoopbackUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname.replace(/^\[(.*)\]$/, '$1'));
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * What answers `GET <url>/api/health`: a cos hub (with the repository it serves when it says), one that
 * wants a token we lack, or nothing that speaks our envelope.
 */
export async function probeHub(
  url: string,
  token: string | undefined,
  timeoutMs = 1500,
): Promise<{ kind: 'hub'; repository?: string } | { kind: 'unauthorised' } | { kind: 'other' } | undefined> {
  let answer: HubAnswer;
  try {
    answer = await hubRequest({ url, token }, 'GET', '/api/health', undefined, { timeoutMs });
  } catch {
    return undefined;
  }
  if (answer.status === 401) return { kind: 'unauthorised' };
  const data = (answer.body as { data?: { version?: unknown; repository?: unknown } } | undefined)?.data;
  if (answer.status !== 200 || typeof data?.version !== 'string') return { kind: 'other' };
  return { kind: 'hub', ...(typeof data.repository === 'string' ? { repository: data.repository } : {}) };
}

/** The hub serving this state directory, when one runs and answers at the address it recorded. */
export async function findRunningHub(config: Config): Promise<RunningHub | undefined> {
  const record = readRecord(config);
  if (!record || !alive(record.pid)) return undefined;
  const probe = await probeHub(record.url, config.token);
  if (!probe || probe.kind === 'other') return undefined;
  // Another repository's hub on a port a dead hub of ours left behind is not ours.
  if (probe.kind === 'hub' && probe.repository !== undefined && probe.repository !== record.repo)
    return undefined;
  return { ...record, authorised: probe.kind === 'hub' };
}

/** The line a command prints when the running hub refused our token. */
export function tokenRefused(hub: RunningHubRecord): string {
  return `the hub at ${hub.url} (pid ${hub.pid}) asks for a token: set COS_HUB_TOKEN to the token it was started with`;
}
