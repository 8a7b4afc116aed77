// Faults from the machine around the hub: a database locked by another process, a full disk, a
// read-only state directory, a corrupt module settings file. Each answers with the category an agent
// can act on and a clear message, and the hub recovers when the cause goes away.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { startTestHub, type TestHub } from '../../support/hub.ts';

const host = { host: '127.0.0.1' };
type Answer = {
  statusCode: number;
  json(): {
    data?: Record<string, unknown>;
    error?: { category: string; retryable: boolean; message: string };
  };
};
const createTask = (t: TestHub, title: string): Promise<Answer> =>
  t.app.inject({
    method: 'POST',
    url: '/api/board/tasks',
    payload: { title },
    headers: host,
  }) as Promise<Answer>;

async function hubIn(repo: string, env: Record<string, string> = {}): Promise<TestHub> {
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  const t = await startTestHub({ env: { COS_REPO: repo, COS_RATE_LIMIT_RPS: '0', ...env } });
  await t.hub.start();
  return t;
}

describe('a database locked by another process', () => {
  let t: TestHub;
  after(() => t?.close());
  test('a write answers transient (retryable) while the lock is held, and succeeds once it is released', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'cos-locked-'));
    t = await hubIn(repo, { COS_DB_BUSY_TIMEOUT_MS: '200' });
    const other = new Database(t.hub.dbPath);
    other.exec('BEGIN EXCLUSIVE');
    try {
      const res = await createTask(t, 'while locked');
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error?.category, 'transient');
      assert.equal(res.json().error?.retryable, true);
      assert.match(res.json().error?.message ?? '', /busy|locked/);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const ok = await createTask(t, 'after the lock');
    assert.equal(ok.statusCode, 200);
  });
});

// A small tmpfs gives a real full disk and a real read-only file system. Mounting needs root; where it
// is refused the tests say so and skip.
function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('a full disk and a read-only state directory', () => {
  const mnt = mkdtempSync(join(tmpdir(), 'cos-tmpfs-'));
  const mounted = mountTmpfs(mnt, '4m');
  let t: TestHub | undefined;
  after(async () => {
    await t?.close().catch(() => {});
    if (mounted) execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
    rmSync(mnt, { recursive: true, force: true });
  });
  const skip = mounted ? false : 'mounting a tmpfs needs root, which this run does not have';

  test('a task write on a full disk answers unavailable, loses nothing, and works once space is freed', {
    skip,
  }, async () => {
    const repo = join(mnt, 'repo');
    t = await hubIn(repo);
    assert.equal((await createTask(t, 'before the disk fills')).statusCode, 200);
    const filler = join(mnt, 'filler');
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
    } catch {
      // dd stops with ENOSPC: the disk is full, as intended.
    }
    const res = await createTask(t, 'on a full disk');
    assert.equal(res.statusCode, 503, JSON.stringify(res.json()));
    assert.equal(res.json().error?.category, 'unavailable');
    assert.match(res.json().error?.message ?? '', /disk is full/);
    rmSync(filler);
    const ok = await createTask(t, 'after space is freed');
    assert.equal(ok.statusCode, 200);
    const list = (await t.app.inject({ method: 'GET', url: '/api/board/list', headers: host })).json() as {
      data: { columns: { status: string; cards: { title: string }[] }[] };
    };
    const titles = list.data.columns.flatMap((c) => c.cards.map((x) => x.title));
    assert.ok(titles.includes('before the disk fills'));
    assert.ok(titles.includes('after space is freed'));
    assert.ok(!titles.includes('on a full disk'), 'the refused write left nothing behind');
  });

  test('a read-only tasks directory answers permission, and writes work again once it is writable', {
    skip,
  }, async () => {
    assert.ok(t, 'the previous test started the hub');
    const tasks = t.config.tasksDir;
    // A read-only bind mount over the tasks directory: the file system refuses the write (EROFS).
    execFileSync('mount', ['--bind', tasks, tasks], { stdio: 'ignore' });
    try {
      execFileSync('mount', ['-o', 'remount,bind,ro', tasks], { stdio: 'ignore' });
      const res = await createTask(t, 'on a read-only disk');
      assert.equal(res.json().error?.category, 'permission', JSON.stringify(res.json()));
      assert.equal(res.statusCode, 403);
      const read = await t.app.inject({ method: 'GET', url: '/api/board/list', headers: host });
      assert.equal(read.statusCode, 200, 'reads still answer');
    } finally {
      execFileSync('umount', [tasks], { stdio: 'ignore' });
    }
    assert.equal((await createTask(t, 'writable again')).statusCode, 200);
  });

  test('a database that refuses writes (read-only) answers permission, and recovers', { skip }, async () => {
    assert.ok(t);
    t.hub.db.pragma('query_only = ON');
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/memory/observations',
        payload: { title: 'read-only', narrative: 'x', type: 'fact' },
        headers: host,
      });
      assert.equal(res.json().error?.category, 'permission', res.body);
    } finally {
      t.hub.db.pragma('query_only = OFF');
    }
  });
});

describe('a corrupt subsystems-state.json', () => {
  let t: TestHub;
  after(() => t?.close());
  test('is reported by cos_health, leaves every module on, and is repaired by the next module change', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'cos-corrupt-modules-'));
    mkdirSync(join(repo, '.cos'), { recursive: true });
    writeFileSync(join(repo, '.cos/subsystems-state.json'), '{ "disabled": [ "graph", ');
    t = await hubIn(repo);
    const health = (await t.app.inject({ method: 'GET', url: '/api/health', headers: host })).json() as {
      data: { status: string; problems: string[] };
    };
    assert.equal(health.data.status, 'degraded');
    assert.match(health.data.problems.join(' '), /subsystems-state\.json is not valid/);
    assert.equal((await createTask(t, 'tools still work')).statusCode, 200);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/modules/graph',
      payload: { enabled: false },
      headers: host,
    });
    const healed = (await t.app.inject({ method: 'GET', url: '/api/health', headers: host })).json() as {
      data: { status: string };
    };
    assert.equal(healed.data.status, 'ok');
  });
});
