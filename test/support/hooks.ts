// Drives hooks the way the clients do: reads the config `cos connect` wrote, finds the handlers of an
// event, and runs each one as its client documents (an http hook is a POST of the payload with the
// configured headers, env vars interpolated from allowedEnvVars; a command hook is `sh -c command` with
// the payload on stdin), returning what the client would read back.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Client = 'claude-code' | 'codex' | 'gemini';

const FIXTURES = new URL('../fixtures/hooks/', import.meta.url).pathname;

/** A recorded payload with {{REPO}} filled in, and any fields overridden. */
export function fixture(
  client: Client,
  name: string,
  repo: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const text = readFileSync(join(FIXTURES, client, `${name}.json`), 'utf8').replaceAll('{{REPO}}', repo);
  return { ...(JSON.parse(text) as Record<string, unknown>), ...overrides };
}

export function fixtureNames(client: Client): string[] {
  return readdirSync(join(FIXTURES, client))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

export const CONFIG_FILE: Record<Client, string> = {
  'claude-code': '.claude/settings.local.json',
  codex: '.codex/hooks.json',
  gemini: '.gemini/settings.json',
};

export interface Handler {
  type: string;
  url?: string;
  command?: string;
  timeout?: number;
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
}

/** The handlers the client would run for an event (matcher groups without a matcher match everything). */
export function handlersFor(client: Client, repo: string, event: string): Handler[] {
  const settings = JSON.parse(readFileSync(join(repo, CONFIG_FILE[client]), 'utf8')) as {
    hooks?: Record<string, { matcher?: string; hooks: Handler[] }[]>;
  };
  return (settings.hooks?.[event] ?? []).flatMap((g) => g.hooks);
}

export interface Delivery {
  /** What the client reads back: the http body, or the command's stdout. */
  output: string;
  status?: number;
  exitCode?: number | null;
  ms: number;
}

function interpolate(
  value: string,
  allowed: readonly string[],
  env: Record<string, string | undefined>,
): string {
  return value.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_m, name: string) =>
    allowed.includes(name) ? (env[name] ?? '') : '',
  );
}

/** Runs one handler on a payload, as the client would (timeouts in the client's unit). */
export async function deliver(
  client: Client,
  handler: Handler,
  payload: unknown,
  env: Record<string, string | undefined> = process.env,
): Promise<Delivery> {
  const started = performance.now();
  const body = JSON.stringify(payload);
  if (handler.type === 'http') {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (const [k, v] of Object.entries(handler.headers ?? {}))
      headers[k] = interpolate(v, handler.allowedEnvVars ?? [], env);
    const res = await fetch(handler.url!, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout((handler.timeout ?? 600) * 1000),
    });
    return { output: await res.text(), status: res.status, ms: performance.now() - started };
  }
  const timeoutMs = client === 'gemini' ? (handler.timeout ?? 60_000) : (handler.timeout ?? 600) * 1000;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', handler.command!], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (out += c));
    child.stderr.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ output: out, exitCode: code, ms: performance.now() - started });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(body);
  });
}

/** Delivers a payload to every handler of its event and returns the one answer (there is one of ours). */
export async function send(
  client: Client,
  repo: string,
  payload: Record<string, unknown>,
  env?: Record<string, string | undefined>,
): Promise<Delivery> {
  const handlers = handlersFor(client, repo, String(payload.hook_event_name));
  if (handlers.length !== 1)
    throw new Error(`expected one handler for ${String(payload.hook_event_name)}, found ${handlers.length}`);
  return deliver(client, handlers[0]!, payload, env);
}

/** The client-side reading of an answer: parsed JSON object, or null for "no output". */
export function answer(d: Delivery): Record<string, unknown> | null {
  const text = d.output.trim();
  if (text === '' || text === '{}') return null;
  return JSON.parse(text) as Record<string, unknown>;
}
