// Runs hostile arguments against every tool of a real hub, over MCP (the official client) and over REST
// (the route each tool declares), and checks the hub's promises: every answer is a well-formed envelope,
// bad input is never `internal`, the process stays up, and nothing is written outside the repository
// and the state directory. Used by the CI test (200 cases a tool) and `npm run fuzz` (long runs, seed).
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createHub, type Hub } from '../../server/hub.ts';
import type { AnyTool } from '../../server/tools/define.ts';
import { EnvelopeSchema } from '../../shared/envelope/index.ts';
import { argumentsFor } from './fuzz.ts';

// The SDK client's transport passes one AbortSignal to every fetch, and undici keeps a listener on it
// per request until the request is collected: thousands of calls trip Node's leak warning on the
// client side (the hub is not involved). Lift the limit for the signals this harness creates.
setMaxListeners(0);

import { connectClient } from './hub.ts';

export interface FuzzOptions {
  runs: number;
  seed?: number;
  /** Only tools whose name includes one of these. */
  only?: string[];
  log?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  tools: number;
  cases: number;
  byCategory: Record<string, number>;
}

/** Every entry under `dir` with its size and mtime: what a check that nothing was written there compares. */
export function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = statSync(full, { throwIfNoEntry: false });
      if (!st) continue;
      out.push(`${relative(dir, full)} ${st.isDirectory() ? 'dir' : `${st.size} ${st.mtimeMs}`}`);
      if (st.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out.sort();
}

/** A small repository with a task, docs and code, an `outside/` sibling, and a symlink pointing at it. */
function seedRepository(root: string): { repo: string; outside: string } {
  const repo = join(root, 'repo');
  const outside = join(root, 'outside');
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'not for tools\n');
  writeFileSync(join(repo, 'README.md'), '# Fuzz repo\n\n## Setup\n\nRun the thing.\n');
  writeFileSync(
    join(repo, 'docs/guide.md'),
    '---\ntitle: Guide\ntype: guide\n---\n# Guide\n\n## Usage\n\nUse `add` from src.\n',
  );
  writeFileSync(
    join(repo, 'src/math.ts'),
    'export function add(a: number, b: number) {\n  return a + b;\n}\n',
  );
  writeFileSync(
    join(repo, 'src/main.ts'),
    "import { add } from './math';\n\nexport const three = add(1, 2);\n",
  );
  writeFileSync(
    join(repo, 'docs/tasks/TASK-1-first.md'),
    '---\nid: TASK-1\ntitle: First task\nstatus: icebox\nkind: feature\npriority: P2\nlabels: [ready]\nversion: 1\n---\n\n## Outcome\n\nSomething.\n',
  );
  symlinkSync(outside, join(repo, 'link-out'));
  return { repo, outside };
}

export async function fuzzTools(options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const log = options.log ?? (() => {});
  const root = mkdtempSync(join(tmpdir(), 'cos-fuzz-'));
  const { repo, outside } = seedRepository(root);
  const outsideBefore = snapshot(outside);
  const config = loadConfig({ COS_REPO: repo, COS_PORT: '0', COS_RATE_LIMIT_RPS: '0' }, {}, repo);
  const hub: Hub = createHub(config);
  const app: FastifyInstance = await buildApp(hub);
  await app.listen({ port: 0, host: '127.0.0.1' });
  await hub.start();
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const client: Client = await connectClient(url);
  const byCategory: Record<string, number> = {};
  let cases = 0;
  const tools = hub.registry
    .all()
    .filter((t) => !options.only || options.only.some((o) => t.name.includes(o)));
  const restoreModules = () => {
    for (const m of hub.modules.list()) if (!m.enabled) hub.modules.set(m.id, true);
  };
  try {
    for (const tool of tools) {
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(argumentsFor(tool.input as never), async (args) => {
          cases++;
          if (tool.mcp !== false) await viaMcp(client, tool, args, byCategory);
          if (tool.http) await viaRest(app, tool, args, byCategory);
          if (tool.name === 'cos_module_set') restoreModules();
        }),
        { numRuns: options.runs, seed, endOnFailure: true, includeErrorInReport: true },
      );
      log(`${tool.name}: ${options.runs} cases in ${Date.now() - started} ms`);
    }
    // Nothing escaped: the sibling directory is untouched and the root holds only the two folders.
    assert.deepEqual(snapshot(outside), outsideBefore, 'nothing was written outside the repository');
    assert.deepEqual(
      readdirSync(root).sort(),
      ['outside', 'repo'],
      'nothing was written beside the repository',
    );
  } finally {
    restoreModules();
    await client.close().catch(() => {});
    await app.close();
    await hub.close();
    rmSync(root, { recursive: true, force: true });
  }
  return { seed, tools: tools.length, cases, byCategory };
}

// What an error message must never carry: the machine's absolute paths, SQL text, a stack frame.
const LEAKS = [
  /\/(tmp|work|root|home|usr|var)\//,
  /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/,
  /\n\s+at .+:\d+:\d+/,
];

function checkError(tool: AnyTool, args: unknown, category: string, message: string): void {
  const shown = `${tool.name} for ${JSON.stringify(args)?.slice(0, 300)}: ${message}`;
  assert.notEqual(category, 'internal', `answered internal: ${shown}`);
  // A message may quote the caller's own input back (any key or value, at any depth); only what the hub
  // adds is checked for leaks.
  const quoted: string[] = [];
  const collect = (v: unknown, depth: number): void => {
    if (depth > 6) return;
    if (typeof v === 'string') quoted.push(v);
    else if (Array.isArray(v)) for (const x of v) collect(x, depth + 1);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        quoted.push(k);
        collect(x, depth + 1);
      }
    } else quoted.push(String(v));
  };
  collect(args, 0);
  const hubText = quoted
    .sort((a, b) => b.length - a.length)
    .reduce((text, q) => (q.length > 3 ? text.split(q).join('') : text), message);
  for (const leak of LEAKS) assert.doesNotMatch(hubText, leak, `leaked ${leak}: ${shown}`);
}

async function viaMcp(
  client: Client,
  tool: AnyTool,
  args: unknown,
  counts: Record<string, number>,
): Promise<void> {
  // client.request() sends what it is given (callTool() would refuse non-object arguments before sending).
  const result = await client.request(
    { method: 'tools/call', params: { name: tool.name, arguments: args as Record<string, unknown> } },
    CallToolResultSchema,
  );
  const env = result.structuredContent as { ok: boolean; error?: { category: string; message: string } };
  assert.ok(
    Value.Check(EnvelopeSchema, env),
    `${tool.name}: not a well-formed envelope: ${JSON.stringify(env).slice(0, 300)}`,
  );
  assert.equal(result.isError, !env.ok);
  const key = env.ok ? 'ok' : env.error!.category;
  counts[key] = (counts[key] ?? 0) + 1;
  if (!env.ok) checkError(tool, args, env.error!.category, env.error!.message);
}

function queryString(args: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) {
    if (Array.isArray(v))
      for (const item of v) params.append(k, typeof item === 'string' ? item : JSON.stringify(item));
    else params.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function viaRest(
  app: FastifyInstance,
  tool: AnyTool,
  args: unknown,
  counts: Record<string, number>,
): Promise<void> {
  const http = tool.http!;
  const obj =
    args !== null && typeof args === 'object' && !Array.isArray(args)
      ? (args as Record<string, unknown>)
      : {};
  let path = http.path;
  const rest: Record<string, unknown> = { ...obj };
  for (const [, name] of http.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    const value = obj[name!];
    delete rest[name!];
    const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    // A lone surrogate cannot be percent-encoded; on the wire it arrives as U+FFFD, as Buffer makes it.
    path = path.replace(`:${name}`, encodeURIComponent(Buffer.from(text).toString()));
  }
  const query = http.method === 'GET' || http.method === 'DELETE';
  const res = await app.inject({
    method: http.method,
    url: query ? `${path}${queryString(rest)}` : path,
    headers: { host: '127.0.0.1' },
    ...(query ? {} : { payload: (obj === args ? rest : args) as object }),
  });
  assert.notEqual(
    res.statusCode,
    500,
    `${http.method} ${http.path} answered 500 for ${JSON.stringify(args)?.slice(0, 300)}: ${res.body.slice(0, 300)}`,
  );
  const body = res.json() as {
    data?: unknown;
    meta?: unknown;
    error?: { category: string; message: string };
  };
  if (res.statusCode === 200) {
    assert.ok('data' in body && 'meta' in body, `${tool.name}: 200 without { data, meta }`);
  } else {
    assert.ok(
      body.error && typeof body.error.category === 'string',
      `${tool.name}: ${res.statusCode} without an error body`,
    );
    checkError(tool, args, body.error.category, body.error.message);
  }
  const key = `rest:${res.statusCode}`;
  counts[key] = (counts[key] ?? 0) + 1;
}
