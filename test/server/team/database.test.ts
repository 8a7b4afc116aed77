// The team database's foundation on a real PostgreSQL: the URL never shown with its password, the team
// key from every spelling of one origin, migrations once under concurrent starts, the feed between hubs
// (NOTIFY, no polling) and its isolation between teams, and `cos serve` refusing an unreachable database
// in one line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import type { ToolError } from '../../../server/errors.ts';
import {
  CONNECT_TIMEOUT_MS,
  isStatementTimeout,
  listTeamMigrations,
  migrate,
  READ_TIMEOUT_MS,
  STATEMENT_TIMEOUT_MS,
  TeamDatabase,
} from '../../../server/team/database.ts';
import type { TeamEntry } from '../../../server/team/feed.ts';
import { normaliseRemote } from '../../../server/team/identity.ts';
import { Team } from '../../../server/team/team.ts';
import { databaseTarget, redactSecrets, redactUrl } from '../../../server/team/url.ts';
import { cos } from '../../support/cli.ts';
import { freePort } from '../../support/pg-cluster.mjs';
import { PG_PASSWORD, type TestDatabase, teamDatabaseUrl } from '../../support/postgres.ts';
import { eventually, git } from '../../support/team.ts';

const silent = pino({ level: 'silent' });
const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;

describe('the team key', () => {
  test('every spelling of one origin names one team', () => {
    const spellings = [
      'git@github.com:Org/Repo.git',
      'https://github.com/Org/Repo',
      'https://user:ghp_secret@GitHub.com/Org/Repo.git',
      'ssh://git@github.com/Org/Repo/',
      'ssh://git@github.com:22/Org/Repo.git',
      'https://github.com:443/Org/Repo.git/',
    ];
    for (const s of spellings) assert.equal(normaliseRemote(s), 'github.com/Org/Repo', s);
    assert.equal(normaliseRemote('ssh://git@gitlab.example:2222/a/b.git'), 'gitlab.example:2222/a/b');
    assert.equal(normaliseRemote('/tmp/x/origin.git'), '/tmp/x/origin');
    assert.equal(normaliseRemote('file:///tmp/x/origin.git'), '/tmp/x/origin');
    assert.notEqual(normaliseRemote('git@github.com:Org/Other.git'), 'github.com/Org/Repo');
  });
});

describe('the database URL', () => {
  test('the password never shows', () => {
    const url = 'postgres://cos:s3cr%40t-pw@db.internal:5433/team?sslmode=require';
    const t = databaseTarget(url);
    assert.equal(t.shown, 'postgres://cos:***@db.internal:5433/team?sslmode=require');
    assert.equal(t.name, 'db.internal:5433/team');
    assert.ok(!redactUrl('postgresql://u:pw@h/db?password=pw2').includes('pw'));
    assert.equal(
      redactSecrets('could not connect to postgres://u:s3cr%40t-pw@h/db: s3cr@t-pw', t),
      'could not connect to postgres://u:***@h/db: ***',
    );
    assert.throws(
      () => databaseTarget('mysql://u:hunter2@h/db'),
      (err: Error) => {
        assert.match(err.message, /postgres:\/\//);
        assert.ok(!err.message.includes('hunter2'));
        return true;
      },
    );
  });
});

describe('on a real PostgreSQL', () => {
  let db: TestDatabase;
  before(async () => {
    db = await teamDatabaseUrl();
  });
  after(async () => {
    await db.drop();
  });

  test('two hubs starting together apply each migration once', async () => {
    const hubs = Array.from({ length: 4 }, () => new TeamDatabase(databaseTarget(db.url)));
    const applied = await Promise.all(hubs.map((h) => h.open()));
    assert.equal(
      applied.reduce((a, b) => a + b, 0),
      listTeamMigrations().length,
    );
    const rows = await hubs[0]!.query<{ n: string }>('SELECT count(*) AS n FROM cos_schema_migrations');
    assert.equal(Number(rows[0]!.n), listTeamMigrations().length);
    assert.equal(hubs[0]!.connection().state, 'connected');
    await Promise.all(hubs.map((h) => h.close()));
  });

  test("a database made by an earlier hub: the feed's entries written before the upgrade read the same after it", async () => {
    // Migrations 1-7 (the feed's bodies jsonb), entries written then, and this hub's migrations on top.
    const older = await teamDatabaseUrl();
    try {
      const first = new pg.Client({ connectionString: older.url });
      await first.connect();
      const body = { entries: [{ event: { id: 1, summary: 'naïve “quotes” \\ and \u2028' }, agent: null }] };
      try {
        await migrate(
          first as unknown as pg.PoolClient,
          listTeamMigrations().filter((m) => m.version <= 7),
        );
        assert.equal(
          (
            await first.query(
              "SELECT data_type FROM information_schema.columns WHERE table_name = 'team_log' AND column_name = 'body'",
            )
          ).rows[0]?.data_type,
          'jsonb',
        );
        await first.query(
          "INSERT INTO team_log (team, hub, machine, kind, body) VALUES ('t', 'old-hub', 'm-old', 'batch:agents.event', $1::jsonb)",
          [JSON.stringify(body)],
        );
      } finally {
        await first.end();
      }
      const hub = new TeamDatabase(databaseTarget(older.url));
      assert.equal(await hub.open(), listTeamMigrations().length - 7);
      const team = new Team(hub, 't', 'machine-new', '/repo-new', silent);
      try {
        const rows = await hub.query<{ body: unknown }>('SELECT body FROM team_log');
        assert.deepEqual(rows[0]?.body, body);
        // A hub that starts now reads on from the log's end; one appending keeps the numbering.
        await team.start();
        const [seq] = await team.feed.publish([{ kind: 'test.after', body: { ok: true } }]);
        assert.equal(seq, 2);
      } finally {
        await team.close();
        await hub.close();
      }
    } finally {
      await older.drop();
    }
  });

  test('a burst of writes beyond the pool waits its turn: a queue, not an unreachable database', async () => {
    // Two connections, twelve writes of 0.6 s each: the last waits about 3 s for its turn, as long as
    // the connect timeout, which pg-pool would have used to call the database unreachable.
    assert.ok((12 * 0.6) / 2 >= CONNECT_TIMEOUT_MS / 1000);
    const hub = new TeamDatabase(databaseTarget(db.url), { max: 2 });
    await hub.open();
    let mostWaiting = 0;
    const watch = setInterval(() => {
      mostWaiting = Math.max(mostWaiting, hub.connection().pool.waiting);
    }, 50);
    try {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          hub.transaction(async (q) => {
            await q.query('SELECT pg_sleep(0.6)');
            return i;
          }),
        ),
      );
      assert.deepEqual(
        results,
        Array.from({ length: 12 }, (_, i) => i),
      );
      assert.ok(mostWaiting >= 5, `writes waited their turn (${mostWaiting} at most)`);
      assert.equal(hub.connection().state, 'connected');
      assert.equal(hub.connection().pool.waiting, 0);
    } finally {
      clearInterval(watch);
      await hub.close();
    }
  });

  test('a statement PostgreSQL cancels at the statement timeout is transient (busy), not an unreachable database', async () => {
    // Another hub holds the lock this write needs for longer than a statement may wait: the server
    // cancels the wait and answers, before the client's read timeout, and the connection stays good.
    assert.ok(READ_TIMEOUT_MS > STATEMENT_TIMEOUT_MS);
    const hub = new TeamDatabase(databaseTarget(db.url), { max: 1 });
    const other = new pg.Client({ connectionString: db.url });
    await Promise.all([hub.open(), other.connect()]);
    try {
      await other.query('SELECT pg_advisory_lock(4242)');
      const started = Date.now();
      await assert.rejects(
        hub.transaction(async (q) => {
          await q.query('SELECT pg_advisory_xact_lock(4242)');
          await q.query('SELECT 1');
        }),
        (err: ToolError) => {
          assert.equal(err.category, 'transient');
          assert.equal(err.retryable, true);
          assert.ok(isStatementTimeout(err));
          assert.match(err.message, /did not finish a statement in 5 s .*nothing was changed: retry/);
          return true;
        },
      );
      const waited = Date.now() - started;
      assert.ok(
        waited >= STATEMENT_TIMEOUT_MS - 100 && waited < READ_TIMEOUT_MS,
        `answered after ${waited} ms`,
      );
      assert.equal(hub.connection().state, 'connected');
      await other.query('SELECT pg_advisory_unlock(4242)');
      // The one connection was rolled back and checked in, not thrown away: the next write uses it.
      assert.deepEqual(await hub.query<{ n: number }>('SELECT 1 AS n'), [{ n: 1 }]);
      assert.equal(hub.connection().pool.total, 1);
    } finally {
      await other.end();
      await hub.close();
    }
  });

  test('a connection lost refuses the writes waiting behind it at once, retryably, and the next goes through', async () => {
    const hub = new TeamDatabase(databaseTarget(db.url), { max: 1, applicationName: 'cos-hub victim' });
    const admin = new TeamDatabase(databaseTarget(db.url));
    await Promise.all([hub.open(), admin.open()]);
    try {
      const holding = hub.query('SELECT pg_sleep(30)');
      const waiting = Array.from({ length: 5 }, () => hub.query('SELECT 1'));
      // Settled from the start: they reject before the terminating statement has answered.
      const outcome = Promise.allSettled([holding, ...waiting]);
      await eventually(() => hub.connection().pool.waiting === 5, 2000, 'five writes waiting');
      const cut = Date.now();
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cos-hub victim'",
      );
      const settled = await outcome;
      assert.ok(Date.now() - cut < 2000, `refused within ${Date.now() - cut} ms`);
      for (const s of settled) {
        assert.equal(s.status, 'rejected');
        const err = (s as PromiseRejectedResult).reason as ToolError;
        assert.equal(err.category, 'unavailable');
        assert.equal(err.retryable, true);
        assert.ok(!err.message.includes(PG_PASSWORD), 'no password in the message');
      }
      assert.equal(hub.connection().state, 'down');
      assert.deepEqual(await hub.query<{ n: number }>('SELECT 1 AS n'), [{ n: 1 }]);
      assert.equal(hub.connection().state, 'connected');
    } finally {
      await Promise.all([hub.close(), admin.close()]);
    }
  });

  test("one hub's entries reach the other hubs of its team, and no other team", async () => {
    const dbA = new TeamDatabase(databaseTarget(db.url));
    const dbB = new TeamDatabase(databaseTarget(db.url));
    const dbC = new TeamDatabase(databaseTarget(db.url));
    await Promise.all([dbA.open(), dbB.open(), dbC.open()]);
    const a = new Team(dbA, 'example.com/org/repo', 'machine-a', '/repo-a', silent);
    const b = new Team(dbB, 'example.com/org/repo', 'machine-b', '/repo-b', silent);
    const other = new Team(dbC, 'example.com/org/other', 'machine-c', '/repo-c', silent);
    await Promise.all([a.start(), b.start(), other.start()]);
    const atB: TeamEntry[] = [];
    const atA: TeamEntry[] = [];
    const atOther: TeamEntry[] = [];
    b.feed.on('*', (e) => atB.push(e));
    a.feed.on('*', (e) => atA.push(e));
    other.feed.on('*', (e) => atOther.push(e));
    const sent = Date.now();
    await a.feed.publish([{ kind: 'test.hello', body: { n: 1 } }]);
    const got = await eventually(() => atB[0], 1000, "machine-b's copy");
    assert.equal(got.kind, 'test.hello');
    assert.equal(got.machine, 'machine-a');
    assert.deepEqual(got.body, { n: 1 });
    assert.ok(Date.now() - sent < 1000);
    // Many at once arrive in order, each once.
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => a.feed.publish([{ kind: 'test.n', body: { i } }])),
    );
    await eventually(() => atB.length === 51, 2000, 'all 51 entries at machine-b');
    const seqs = atB.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((x, y) => x - y),
    );
    assert.equal(new Set(seqs).size, 51);
    // Batches of one hub, appended while another hub appends too: each arrives in its order, numbered
    // without a gap (the numbers are drawn under the team's lock), and every hub reads them in order.
    const atA0 = atA.length;
    await Promise.all([
      ...Array.from({ length: 10 }, (_, j) =>
        a.feed.publish(Array.from({ length: 5 }, (_, i) => ({ kind: 'test.batch', body: { j, i } }))),
      ),
      ...Array.from({ length: 10 }, (_, j) => b.feed.publish([{ kind: 'test.other', body: { j } }])),
    ]);
    const batches = await eventually(
      () => {
        const l = atB.filter((e) => e.kind === 'test.batch');
        return l.length === 50 ? l : undefined;
      },
      2000,
      'all 50 batched entries at machine-b',
    );
    for (let j = 0; j < 10; j++) {
      const one = batches.filter((e) => (e.body as { j: number }).j === j);
      assert.deepEqual(
        one.map((e) => (e.body as { i: number }).i),
        [0, 1, 2, 3, 4],
      );
      assert.deepEqual(
        one.map((e) => e.seq - one[0]!.seq),
        [0, 1, 2, 3, 4],
      );
    }
    const fromB = await eventually(
      () => {
        const l = atA.slice(atA0);
        return l.length === 10 ? l : undefined;
      },
      2000,
      "machine-b's entries at machine-a",
    );
    for (const list of [atB, fromB]) {
      const order = list.map((e) => e.seq);
      assert.deepEqual(
        order,
        [...order].sort((x, y) => x - y),
      );
    }
    atA.splice(atA0);
    await other.feed.settle();
    assert.equal(atOther.length, 0, 'another team sees nothing');
    assert.equal(atA.length, 0, 'a hub is not handed its own entries');
    // The outbox: queued without waiting, written by its kind's writer, delivered.
    await dbA.query('CREATE TABLE IF NOT EXISTS test_outbox (n int)');
    a.writer('test.out', async (q, bodies) => {
      for (const body of bodies)
        await q.query('INSERT INTO test_outbox VALUES ($1)', [(body as { n: number }).n]);
    });
    for (let n = 0; n < 10; n++) a.enqueue('test.out', { n });
    await a.drain();
    const rows = await dbA.query<{ n: string }>('SELECT count(*) AS n FROM test_outbox');
    assert.equal(Number(rows[0]!.n), 10);
    await eventually(() => atB.filter((e) => e.kind === 'test.out').length === 10, 2000, 'outbox entries');
    const hubs = await a.hubs();
    assert.deepEqual(
      hubs.map((h) => h.machine),
      ['machine-a', 'machine-b'],
    );
    await Promise.all([a.close(), b.close(), other.close()]);
    await Promise.all([dbA.close(), dbB.close(), dbC.close()]);
  });
});

describe('cos doctor', () => {
  test('says whether the team database is reachable, its schema and the team, never the password', async () => {
    const fresh = await teamDatabaseUrl();
    const repo = mkdtempSync(join(tmpdir(), 'cos-team-doctor-'));
    git(repo, 'init', '-q');
    git(repo, 'remote', 'add', 'origin', 'https://example.com/Org/Doctor.git');
    try {
      const line = async (url: string) => {
        const run = await cos(['doctor', '--repo', repo], { COS_DATABASE_URL: url, COS_MACHINE: 'doc-box' });
        assert.ok(!run.stdout.includes(PG_PASSWORD) && !run.stderr.includes(PG_PASSWORD));
        return run.stdout.split('\n').find((l) => l.includes('team database')) ?? '';
      };
      const before = await line(fresh.url);
      assert.match(before, /^ok\s+team database .*reachable, 0 of \d+ migrations applied/);
      assert.match(before, /team example\.com\/Org\/Doctor, machine doc-box/);
      const db = new TeamDatabase(databaseTarget(fresh.url));
      await db.open();
      await db.close();
      assert.match(await line(fresh.url), /schema current/);
      const port = await freePort();
      assert.match(
        await line(`postgres://cos:${PG_PASSWORD}@127.0.0.1:${port}/nowhere`),
        new RegExp(`^FAIL\\s+team database\\s+cannot reach 127\\.0\\.0\\.1:${port}/nowhere`),
      );
    } finally {
      rmSync(repo, { recursive: true, force: true });
      await fresh.drop();
    }
  });
});

describe('cos serve', () => {
  test('an unreachable team database: exit 1, one line naming it, never the password', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'cos-team-down-'));
    git(repo, 'init', '-q');
    git(repo, 'remote', 'add', 'origin', 'git@example.com:org/repo.git');
    const port = await freePort();
    const child = spawn(process.execPath, [COS, 'serve', '--port', '0', '--repo', repo], {
      env: { ...process.env, COS_DATABASE_URL: `postgres://cos:${PG_PASSWORD}@127.0.0.1:${port}/team` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    rmSync(repo, { recursive: true, force: true });
    assert.equal(code, 1);
    assert.equal(out, '');
    const lines = err.trim().split('\n');
    assert.equal(lines.length, 1, err);
    assert.match(lines[0]!, new RegExp(`team database 127\\.0\\.0\\.1:${port}/team`));
    assert.ok(!err.includes(PG_PASSWORD));
    assert.ok(!/\n\s+at /.test(err), 'no stack trace');
  });
});
