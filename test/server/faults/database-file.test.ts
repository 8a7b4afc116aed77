// hub.db damaged before a start, or deleted, replaced, truncated or overwritten under a running hub (a
// real `cos serve` process, its real files). A start on a damaged file says in one line what to do and
// exits 1; a running hub refuses every change it could not keep (`unavailable`, saying what to do, over
// REST and MCP) instead of acknowledging it, keeps answering reads, and cos_health names the problem.
// On the previous main a damaged file was served (cos_health answered `internal`) and a deleted one
// acknowledged memory writes that were gone after a restart.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DatabaseFileGuard } from '../../../server/db/file-guard.ts';
import { openDatabase } from '../../../server/db/open.ts';
import { connectClient } from '../../support/hub.ts';
import { type HubProcess, startHubProcess } from '../../support/hub-process.ts';

const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;
const roots: string[] = [];
const hubs: HubProcess[] = [];
after(async () => {
  for (const h of hubs) if (h.child.exitCode === null) await h.kill9();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function freshRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'cos-dbfile-'));
  roots.push(repo);
  mkdirSync(join(repo, 'docs', 'tasks'), { recursive: true });
  return repo;
}

const dbOf = (repo: string) => join(repo, '.cos', 'hub.db');

/** A repository whose hub.db holds a few hundred rows, written by the hub's own schema, then closed. */
function repoWithDatabase(): string {
  const repo = freshRepo();
  mkdirSync(join(repo, '.cos'));
  const db = openDatabase(dbOf(repo));
  const insert = db.prepare(
    "INSERT INTO observations (memory_type, confidence, impact, created_at, content_hash, title, narrative) VALUES ('fact', 0.5, 'low', ?, ?, ?, ?)",
  );
  for (let i = 0; i < 400; i++) insert.run(Date.now(), `hash-${i}`, `observation ${i}`, 'n'.repeat(400));
  db.close();
  return repo;
}

/** The memory titles hub.db holds, in the order written (read once the hub has stopped). */
function titles(repo: string): string[] {
  const db = openDatabase(dbOf(repo), { migrate: false });
  try {
    return db.prepare('SELECT title FROM observations ORDER BY id').pluck().all() as string[];
  } finally {
    db.close();
  }
}

function overwrite(file: string, at: number, length: number): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(length, 0x5a), 0, length, at);
  } finally {
    closeSync(fd);
  }
}

interface Answer {
  status: number;
  body: {
    data?: { status?: string; problems?: string[] } & Record<string, unknown>;
    error?: { category: string; retryable: boolean; message: string };
  };
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

const post = (body: unknown, method = 'POST'): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const remember = (url: string, title: string) =>
  call(`${url}/api/memory/observations`, post({ title, narrative: 'kept?', type: 'fact' }));

describe('a start on a damaged hub.db', () => {
  const cases: [string, (file: string) => void][] = [
    ['truncated to half its size', (f) => truncateSync(f, Math.floor(statSync(f).size / 2))],
    ['with its header overwritten', (f) => overwrite(f, 0, 100)],
    ['with pages in the middle overwritten', (f) => overwrite(f, 8 * 4096, 3 * 4096)],
  ];
  for (const [what, damage] of cases) {
    for (const command of [['serve', '--port', '0'], ['index']]) {
      test(`cos ${command[0]} on a file ${what} says in one line what to do and exits 1`, {
        timeout: 60_000,
      }, () => {
        const repo = repoWithDatabase();
        damage(dbOf(repo));
        const res = spawnSync(process.execPath, [COS, ...command, '--repo', repo], {
          encoding: 'utf8',
          timeout: 50_000,
        });
        assert.equal(res.status, 1, res.stdout + res.stderr);
        assert.equal(res.stdout, '', 'nothing is served, nothing announced');
        const lines = res.stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, res.stderr);
        assert.match(
          lines[0]!,
          /^cos: the database \S+\/\.cos\/hub\.db is damaged \((SQLITE_CORRUPT|SQLITE_NOTADB|COS_DB_DAMAGED)\): restore hub\.db from a backup, or move it .* aside .*`cos doctor` checks the result; then start again$/,
        );
        assert.doesNotMatch(res.stderr, /\n\s+at /);
      });
    }
  }

  test('once the damaged file is moved aside, as the line says, the hub starts on a new one', {
    timeout: 120_000,
  }, async () => {
    const repo = repoWithDatabase();
    overwrite(dbOf(repo), 8 * 4096, 3 * 4096);
    const refused = spawnSync(process.execPath, [COS, 'serve', '--port', '0', '--repo', repo], {
      encoding: 'utf8',
      timeout: 50_000,
    });
    assert.equal(refused.status, 1, refused.stderr);
    for (const suffix of ['', '-wal', '-shm'])
      if (existsSync(dbOf(repo) + suffix)) renameSync(dbOf(repo) + suffix, `${dbOf(repo)}.damaged${suffix}`);
    const hub = await startHubProcess(repo);
    hubs.push(hub);
    const health = await call(`${hub.url}/api/health`);
    assert.equal(health.body.data?.status, 'ok', JSON.stringify(health.body));
    assert.equal((await remember(hub.url, 'after a clean start')).status, 200);
    assert.equal(await hub.stop(), 0, hub.output());
    assert.deepEqual(titles(repo), ['after a clean start']);
  });
});

describe('hub.db changed under a running hub', () => {
  async function running(): Promise<{ repo: string; hub: HubProcess }> {
    const repo = freshRepo();
    const hub = await startHubProcess(repo);
    hubs.push(hub);
    const before = await remember(hub.url, 'before');
    assert.equal(before.status, 200, JSON.stringify(before.body));
    return { repo, hub };
  }

  /** Writes are refused saying `what` and what to do; reads answer; cos_health names it. */
  async function refusesChanges(url: string, what: RegExp, todo: RegExp): Promise<void> {
    for (const attempt of [
      () => remember(url, 'would be lost'),
      () => call(`${url}/api/board/tasks`, post({ title: 'would be lost too' })),
      () => call(`${url}/api/memory/observations/1`, post({ title: 'edited' }, 'PATCH')),
    ]) {
      const res = await attempt();
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.error?.category, 'unavailable');
      assert.equal(res.body.error?.retryable, false);
      assert.match(res.body.error?.message ?? '', what);
      assert.match(res.body.error?.message ?? '', todo);
      assert.doesNotMatch(res.body.error?.message ?? '', /\/tmp\//, 'no absolute path');
    }
    // A hook event would be written to the same file: refused too (the agent goes on either way).
    const hook = await call(
      `${url}/api/hooks/events?client=claude-code`,
      post({ hook_event_name: 'Stop', session_id: 'h1' }),
    );
    assert.equal(hook.status, 503, JSON.stringify(hook.body));
    assert.match(hook.body.error?.message ?? '', what);
    // Reads go on: the board, a search, the list of memories.
    assert.equal((await call(`${url}/api/board/list`)).status, 200);
    assert.equal((await call(`${url}/api/search/memory?query=observation`)).status, 200);
    const health = await call(`${url}/api/health`);
    assert.equal(health.status, 200, JSON.stringify(health.body));
    assert.equal(health.body.data?.status, 'degraded');
    assert.match(JSON.stringify(health.body.data?.problems), what);
  }

  test('deleted: changes are refused over REST and MCP; a restart starts a new database', {
    timeout: 120_000,
  }, async () => {
    const { repo, hub } = await running();
    unlinkSync(dbOf(repo));
    await refusesChanges(hub.url, /hub\.db was deleted while the hub ran/, /restart the hub/);
    const client = await connectClient(hub.url);
    try {
      const res = await client.callTool({
        name: 'cos_observation_record',
        arguments: { title: 'over MCP', narrative: 'lost?', type: 'fact' },
      });
      assert.equal(res.isError, true);
      const envelope = res.structuredContent as Answer['body'];
      assert.equal(envelope.error?.category, 'unavailable');
      assert.match(envelope.error?.message ?? '', /deleted/);
    } finally {
      await client.close();
    }
    assert.equal(await hub.stop(), 0, hub.output());

    const again = await startHubProcess(repo);
    hubs.push(again);
    assert.equal((await call(`${again.url}/api/health`)).body.data?.status, 'ok');
    assert.equal((await remember(again.url, 'in the new database')).status, 200);
    assert.equal(await again.stop(), 0, again.output());
    assert.deepEqual(titles(repo), ['in the new database'], 'nothing refused was kept anywhere');
  });

  test('replaced by another file: changes are refused; a restart serves the new file', {
    timeout: 120_000,
  }, async () => {
    const { repo, hub } = await running();
    const other = repoWithDatabase();
    copyFileSync(dbOf(other), `${dbOf(repo)}.new`);
    renameSync(`${dbOf(repo)}.new`, dbOf(repo));
    await refusesChanges(hub.url, /hub\.db was replaced while the hub ran/, /restart the hub/);
    assert.equal(await hub.stop(), 0, hub.output());
    const again = await startHubProcess(repo);
    hubs.push(again);
    assert.equal((await remember(again.url, 'into the replacement')).status, 200);
    assert.equal(await again.stop(), 0, again.output());
    // The replacement is the file served now: its rows, and the write made after the restart.
    assert.deepEqual(titles(repo).slice(-2), ['observation 399', 'into the replacement']);
    assert.ok(!titles(repo).includes('would be lost'));
  });

  test('a thread opening the file after a swap refuses it; closing removes the old -wal; the new file is intact', () => {
    // What the graph worker and the call writer do when they start after the swap, and what the hub's
    // close does after it.
    const repo = repoWithDatabase();
    const main = openDatabase(dbOf(repo));
    const guard = new DatabaseFileGuard(dbOf(repo));
    main.prepare("INSERT INTO hub_meta (key, value) VALUES ('who', 'the old file')").run();
    copyFileSync(dbOf(repoWithDatabase()), `${dbOf(repo)}.new`);
    renameSync(`${dbOf(repo)}.new`, dbOf(repo));
    assert.throws(() => openDatabase(dbOf(repo), { migrate: false, sameFileAs: guard.opened }), {
      code: 'COS_DB_MOVED',
    });
    main.prepare("INSERT INTO hub_meta (key, value) VALUES ('after', 'the swap')").run();
    main.close();
    assert.deepEqual(guard.close(), ['hub.db-wal', 'hub.db-shm']);
    const replacement = openDatabase(dbOf(repo), { migrate: false });
    try {
      assert.equal(replacement.prepare('SELECT count(*) FROM hub_meta').pluck().get(), 0);
      assert.equal(replacement.prepare('SELECT count(*) FROM observations').pluck().get(), 400);
      assert.equal(replacement.pragma('quick_check', { simple: true }), 'ok');
    } finally {
      replacement.close();
    }
  });

  for (const [what, damage] of [
    ['truncated to nothing', (f: string) => truncateSync(f, 0)],
    ['overwritten with garbage', (f: string) => overwrite(f, 0, statSync(f).size)],
  ] as const) {
    test(`${what}: changes are refused until a person restores the file`, { timeout: 120_000 }, async () => {
      const { repo, hub } = await running();
      damage(dbOf(repo));
      await refusesChanges(
        hub.url,
        /hub\.db was overwritten or truncated while the hub ran/,
        /stop the hub, restore hub\.db from a backup/,
      );
      assert.equal(hub.child.exitCode, null, `the hub exited: ${hub.output()}`);
      assert.equal(await hub.stop(), 0, hub.output());
    });
  }
});
