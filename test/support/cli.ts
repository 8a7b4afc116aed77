// The `cos` command as child processes beside a running hub, for the tests of the CLI ↔ hub truth.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const COS = new URL('../../server/bin/cos.mjs', import.meta.url).pathname;

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** performance.now() when the process exited. */
  exitedAt: number;
}

/** `cos …` as a child process, without blocking this one (the MCP client must keep listening). */
export function cos(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [COS, ...args], {
      env: { ...process.env, COS_HUB_TOKEN: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('exit', (status) => resolve({ status, stdout, stderr, exitedAt: performance.now() }));
  });
}

export function makeRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'cos-running-'));
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(
    join(repo, 'docs/tasks/TASK-1-from-another-tool.md'),
    '---\nid: TASK-1\ntitle: Written by another tool\nstatus: icebox\nkind: feature\npriority: P2\nversion: 1\n---\n',
  );
  writeFileSync(join(repo, 'src/a.ts'), "import { b } from './b';\nexport const a = () => b();\n");
  writeFileSync(join(repo, 'src/b.ts'), 'export function b(): number {\n  return 1;\n}\n');
  return repo;
}

export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 30_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
