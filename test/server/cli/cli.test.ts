// The `cos` command as a user runs it: a child process over a temp repository.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;
const cos = (repo: string, ...args: string[]) =>
  spawnSync(process.execPath, [COS, ...args, '--repo', repo], { encoding: 'utf8', timeout: 60_000 });

function repoWithTasks(): string {
  const repo = mkdtempSync(join(tmpdir(), 'cos-cli-'));
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  writeFileSync(
    join(repo, 'docs/tasks/TASK-1-ok.md'),
    '---\nid: TASK-1\ntitle: ok\nstatus: icebox\nkind: feature\npriority: P2\nversion: 1\n---\n',
  );
  return repo;
}

test('cos doctor passes on a healthy repository', () => {
  const res = cos(repoWithTasks(), 'doctor');
  assert.equal(res.status, 0, res.stdout + res.stderr);
  assert.match(res.stdout, /ok\s+database\s+schema \d+, integrity ok/);
  assert.match(res.stdout, /ok\s+task files\s+1 indexed/);
  assert.match(res.stdout, /ok\s+code graph\s+not indexed yet/);
});

test('cos doctor names an unparsable task file and the reason, keeps it, and exits 1', () => {
  const repo = repoWithTasks();
  const bad = join(repo, 'docs/tasks/TASK-2-bad.md');
  writeFileSync(bad, '---\nid: [broken\n---\n');
  const res = cos(repo, 'doctor');
  assert.equal(res.status, 1);
  assert.match(res.stdout, /FAIL\s+task file\s+docs\/tasks\/TASK-2-bad\.md: .*does not parse/);
  assert.equal(readFileSync(bad, 'utf8'), '---\nid: [broken\n---\n', 'the file is never rewritten');
});

test('cos doctor | head: a reader that closes the pipe early gets no stack trace, and the exit code stays', async () => {
  const repo = repoWithTasks();
  writeFileSync(join(repo, 'docs/tasks/TASK-2-bad.md'), '---\nid: [broken\n---\n');
  // As `| head -1` does: read the first line, then close the pipe while the doctor still writes.
  const child = spawn(process.execPath, [COS, 'doctor', '--repo', repo], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.doesNotMatch(stderr, /EPIPE|Unhandled|at /, stderr);
  assert.equal(code, 1, 'the broken task file still fails the doctor');
});

test('cos module disable and enable edit subsystems-state.json', () => {
  const repo = repoWithTasks();
  assert.equal(cos(repo, 'module', 'disable', 'graph').status, 0);
  assert.deepEqual(JSON.parse(readFileSync(join(repo, '.cos/subsystems-state.json'), 'utf8')).disabled, [
    'graph',
  ]);
  const list = cos(repo, 'module', 'list');
  assert.match(list.stdout, /off\s+graph/);
  assert.equal(cos(repo, 'module', 'enable', 'graph').status, 0);
  assert.equal(cos(repo, 'module', 'disable', 'kernel').status, 2);
  assert.equal(cos(repo, 'module', 'disable', 'warp').status, 2);
});

test('cos refuses a non-loopback host without a token', () => {
  const res = spawnSync(process.execPath, [COS, 'serve', '--host', '0.0.0.0'], {
    encoding: 'utf8',
    env: { ...process.env, COS_HUB_TOKEN: '' },
  });
  assert.equal(res.status, 2);
  assert.match(res.stderr, /COS_HUB_TOKEN/);
});

test('cos serve answers, then on SIGTERM closes sessions and the database and exits 0', {
  timeout: 90_000,
}, async (t) => {
  const { spawn } = await import('node:child_process');
  const repo = repoWithTasks();
  const child = spawn(process.execPath, [COS, 'serve', '--port', '0', '--repo', repo], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Whatever happens below, the child must not outlive the test (it would keep the runner waiting).
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 75_000);
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      // The claude line is printed last: wait for it, not just the MCP URL, so the whole banner is in.
      const m = /MCP\s+(http:\/\/\S+)\/mcp/.exec(out);
      if (m?.[1] && /claude mcp add .*\/mcp\n/.test(out)) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  assert.match(out, /claude mcp add --transport http cos http:\/\/127\.0\.0\.1:\d+\/mcp/);
  const health = await fetch(`${url}/api/health`);
  assert.equal(health.status, 200);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.match(out, /SIGTERM: closing/);
  const { openDatabase } = await import('../../../server/db/open.ts');
  const db = openDatabase(join(repo, '.cos/hub.db'));
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  db.close();
});

test('cos index builds the code graph, and cos doctor then reports it healthy', { timeout: 120_000 }, () => {
  const repo = repoWithTasks();
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src/a.ts'), "import { b } from './b';\nexport const a = () => b();\n");
  writeFileSync(join(repo, 'src/b.ts'), 'export function b(): number {\n  return 1;\n}\n');
  const index = cos(repo, 'index');
  assert.equal(index.status, 0, index.stdout + index.stderr);
  const res = cos(repo, 'doctor');
  assert.equal(res.status, 0, res.stdout + res.stderr);
  assert.match(res.stdout, /ok\s+code graph\s+\d+ files, \d+ nodes, \d+ edges; healthy/);
});
