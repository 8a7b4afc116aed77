// A full state directory under a running `cos serve` (a real process, its real asynchronous log writer):
// writes answer `unavailable` and reads keep answering for as long as the disk is full, logging never
// takes the hub down or holds it, writes work again once space returns, and SIGTERM still stops it.
// The disk is a real one: a 16 MB tmpfs, filled with dd. Mounting needs root; without it the test says
// so and skips (no other way to make a real disk full here).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type HubProcess, startHubProcess } from '../../support/hub-process.ts';

function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function fill(file: string): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // dd stops with ENOSPC: the disk is full, as intended.
  }
}

interface Answer {
  status: number;
  ms: number;
  body: { data?: Record<string, unknown>; error?: { category: string; message: string } };
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, ms: performance.now() - t0, body: (await res.json()) as Answer['body'] };
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('a full state directory under a running hub', () => {
  const mnt = mkdtempSync(join(tmpdir(), 'cos-full-'));
  const mounted = mountTmpfs(mnt, '16m');
  let hub: HubProcess | undefined;
  after(async () => {
    if (hub && hub.child.exitCode === null) await hub.kill9();
    if (mounted) execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
    rmSync(mnt, { recursive: true, force: true });
  });
  const skip = mounted ? false : 'mounting a tmpfs needs root, which this run does not have';

  test('writes answer unavailable, nothing hangs or crashes, writes work again, SIGTERM stops it', {
    skip,
    timeout: 180_000,
  }, async () => {
    const repo = join(mnt, 'repo');
    mkdirSync(join(repo, 'docs', 'tasks'), { recursive: true });
    hub = await startHubProcess(repo);
    const url = hub.url;
    assert.equal(
      (await call(`${url}/api/board/tasks`, json({ title: 'before the disk fills' }))).status,
      200,
    );

    const filler = join(mnt, 'filler');
    fill(filler);
    // Many writes and reads while it is full; each write is logged with its error id, so the log writer
    // fails again and again meanwhile.
    for (let i = 0; i < 20; i++) {
      const task = await call(`${url}/api/board/tasks`, json({ title: `on a full disk ${i}` }));
      assert.equal(task.status, 503, JSON.stringify(task.body));
      assert.equal(task.body.error?.category, 'unavailable');
      assert.match(task.body.error?.message ?? '', /disk is full/);
      const memory = await call(
        `${url}/api/memory/observations`,
        json({ title: `full ${i}`, narrative: 'x'.repeat(2000), type: 'fact' }),
      );
      assert.equal(memory.status, 503, JSON.stringify(memory.body));
      assert.equal(memory.body.error?.category, 'unavailable');
      const health = await call(`${url}/api/health`);
      assert.equal(health.status, 200);
      assert.ok(health.ms < 5_000, `health took ${health.ms} ms`);
      assert.equal((await call(`${url}/api/board/list`)).status, 200);
    }
    assert.equal(hub.child.exitCode, null, `the hub exited: ${hub.output()}`);
    const health = await call(`${url}/api/health`);
    assert.equal(health.body.data?.status, 'degraded');
    assert.match(JSON.stringify(health.body.data?.problems), /\.mcp\.log cannot be written \(ENOSPC\)/);

    rmSync(filler);
    // Space is back: writes work again (the log writer retries within a second).
    const again = await call(`${url}/api/board/tasks`, json({ title: 'after space returns' }));
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(
      (await call(`${url}/api/memory/observations`, json({ title: 'back', narrative: 'x', type: 'fact' })))
        .status,
      200,
    );
    for (let i = 0; i < 50; i++) {
      const h = await call(`${url}/api/health`);
      if (h.body.data?.status === 'ok') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal((await call(`${url}/api/health`)).body.data?.status, 'ok');
    assert.match(
      readFileSync(join(repo, '.cos', '.mcp.log'), 'utf8'),
      /log lines were dropped while \.mcp\.log could not be written/,
    );
    assert.equal(hub.child.exitCode, null, `the hub exited: ${hub.output()}`);

    // Full again, then SIGTERM: it still stops, cleanly.
    fill(filler);
    await call(`${url}/api/board/tasks`, json({ title: 'one more on a full disk' }));
    const t0 = Date.now();
    const code = await hub.stop();
    assert.equal(code, 0, hub.output());
    assert.ok(Date.now() - t0 < 20_000, `SIGTERM took ${Date.now() - t0} ms`);
    assert.doesNotMatch(hub.output(), /ENOSPC|Unhandled/);
    rmSync(filler);
  });
});
