// Drives a packaged `cos` the way a new user does, in a fresh git repository of their own: serve it
// (MCP initialize, tools/list and a call through the official SDK client; a REST call; the SPA's page
// and a script it loads; Swagger UI's), then `cos index`, `cos doctor` and `cos module list` on the same repository.
// Used by the CI step that installs the packed tarball (scripts/pack-smoke.ts) and by the test that
// runs the packed files in place (test/package/package.test.ts).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** How to run the packaged command: `['/prefix/bin/cos']`, or `[process.execPath, '<pkg>/dist/cos.js']`. */
export type CosCommand = readonly [string, ...string[]];

export interface CheckReport {
  version: string;
  tools: number;
  indexed: string;
  steps: { step: string; ms: number }[];
}

/**
 * The environment a user's shell would have: none of the hub's variables (the repository is the
 * working directory), no loader options that could bring tsx in, nothing pointing at the clone.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('COS_') || k.startsWith('npm_') || k === 'NODE_OPTIONS' || k === 'NODE_PATH') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** A small repository as people have them: TypeScript, Python, Markdown docs, a task file, a commit. */
export function makeUserRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'cos-user-repo-'));
  const files: Record<string, string> = {
    'src/greet.ts':
      "import { shout } from './util/shout.ts';\n\nexport function greet(name: string): string {\n  return shout('hello ' + name);\n}\n",
    'src/util/shout.ts': 'export const shout = (s: string): string => s.toUpperCase();\n',
    'tools/report.py':
      'import os\n\n\nclass Report:\n    def render(self) -> str:\n        return os.getcwd()\n\n\ndef main():\n    print(Report().render())\n',
    'README.md': '# A project\n\nIt greets people.\n\n## Usage\n\nRun it.\n',
    'docs/design notes.md': '# Design\n\nOne greeting at a time.\n',
    'docs/tasks/TASK-1-first.md':
      '---\nid: TASK-1\ntitle: Greet in French\nstatus: icebox\nkind: feature\npriority: P2\nversion: 1\n---\n\n## Outcome\n\nBonjour.\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=A User', '-c', 'user.email=user@example.com', 'commit', '-qm', 'first');
  return repo;
}

function run(cos: CosCommand, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const [command, ...pre] = cos;
  return spawnSync(command, [...pre, ...args], { cwd, env, encoding: 'utf8', timeout: 120_000 });
}

async function startServe(
  cos: CosCommand,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; child: ChildProcess; exited: Promise<number | null>; output: () => string }> {
  const [command, ...pre] = cos;
  const child = spawn(command, [...pre, 'serve', '--port', '0'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const reap = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', reap);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cos serve did not start in 60 s:\n${out}`)), 60_000);
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /MCP\s+(http:\/\/\S+)\/mcp/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cos serve exited (${code}):\n${out}`));
    });
  });
  return { url, child, exited, output: () => out };
}

/**
 * Runs every check in a fresh repository, removed afterwards; throws (an AssertionError naming the
 * step) at the first that fails.
 */
export async function checkInstalledCos(
  cos: CosCommand,
  options: { version: string; log?: (line: string) => void },
): Promise<CheckReport> {
  const log = options.log ?? (() => {});
  const steps: CheckReport['steps'] = [];
  const step = async <T>(name: string, fn: () => T | Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const value = await fn();
    const ms = Math.round(performance.now() - t0);
    steps.push({ step: name, ms });
    log(`ok  ${name} (${ms} ms)`);
    return value;
  };
  const repo = makeUserRepo();
  try {
    const { tools, indexed } = await checkIn(repo, cos, options.version, step);
    return { version: options.version, tools, indexed, steps };
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** The checks themselves, in the user's repository `repo`. */
async function checkIn(
  repo: string,
  cos: CosCommand,
  version: string,
  step: <T>(name: string, fn: () => T | Promise<T>) => Promise<T>,
): Promise<{ tools: number; indexed: string }> {
  const options = { version };
  const env = userEnv();

  await step('cos --version', () => {
    const r = run(cos, ['--version'], repo, env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), options.version);
  });
  await step('cos --help', () => {
    const r = run(cos, ['--help'], repo, env);
    assert.equal(r.status, 0, r.stderr);
    for (const word of ['serve', 'index', 'doctor', 'module'])
      assert.match(r.stdout, new RegExp(`\\b${word}\\b`));
  });

  const hub = await step('cos serve (until it prints its URL)', () => startServe(cos, repo, env));
  let tools = 0;
  try {
    const client = new Client({ name: 'pack-smoke', version: '1.0.0' });
    await step('MCP initialize', () =>
      client.connect(new StreamableHTTPClientTransport(new URL('/mcp', hub.url))),
    );
    assert.equal(client.getServerVersion()?.version, options.version);
    await step('MCP tools/list', async () => {
      const list = await client.listTools();
      tools = list.tools.length;
      assert.ok(
        list.tools.some((t) => t.name === 'cos_health'),
        'tools/list names cos_health',
      );
      assert.ok(tools > 10, `tools/list has ${tools} tools`);
    });
    await step('MCP tools/call cos_task_show', async () => {
      const r = await client.callTool({ name: 'cos_task_show', arguments: { id: 'TASK-1' } });
      assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
      assert.match(JSON.stringify(r.structuredContent), /Greet in French/);
    });
    await client.close();
    await step('REST GET /api/health', async () => {
      const res = await fetch(new URL('/api/health', hub.url));
      assert.equal(res.status, 200);
      const body = (await res.json()) as { data: { status: string; version: string } };
      assert.equal(body.data.version, options.version);
    });
    await step('REST GET /api/board/list', async () => {
      const res = await fetch(new URL('/api/board/list', hub.url));
      assert.equal(res.status, 200);
      assert.match(await res.text(), /Greet in French/);
    });
    await step('SPA GET / and a script it loads', async () => {
      const res = await fetch(new URL('/', hub.url));
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      const html = await res.text();
      assert.match(html, /<div id="root">/);
      const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
      assert.ok(script, 'the page loads a script');
      const js = await fetch(new URL(script, hub.url));
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type') ?? '', /javascript/);
    });
    // Swagger UI is bundled with its page and scripts copied beside dist/ (scripts/build-server.mjs):
    // its __dirname must point there.
    await step('Swagger UI GET /docs and a script it loads', async () => {
      const res = await fetch(new URL('/docs', hub.url));
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /swagger-ui/i);
      const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
      assert.ok(script, 'the Swagger UI page loads a script');
      const js = await fetch(new URL(script, new URL('/docs/', hub.url)));
      assert.equal(js.status, 200, `GET ${script}`);
      assert.match(js.headers.get('content-type') ?? '', /javascript/);
    });
  } finally {
    hub.child.kill('SIGTERM');
  }
  const code = await hub.exited;
  assert.equal(code, 0, `cos serve exits 0 on SIGTERM:\n${hub.output()}`);

  const indexed = await step('cos index', () => {
    const r = run(cos, ['index'], repo, env);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /indexed .*: \d+ files seen/);
    assert.doesNotMatch(r.stdout, / 0 files seen/);
    return r.stdout.trim();
  });
  await step('cos doctor', () => {
    const r = run(cos, ['doctor'], repo, env);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /ok\s+code graph\s+\d+ files/);
    assert.match(r.stdout, /ok\s+task files\s+1 indexed/);
  });
  await step('cos module list', () => {
    const r = run(cos, ['module', 'list'], repo, env);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /on\s+graph/);
  });
  return { tools, indexed };
}
