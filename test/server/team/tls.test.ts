// The README's TLS setup, for real: a cluster that refuses TCP without TLS, its certificate signed by a
// CA of its own. The hub's pool connects with sslmode=verify-full and that CA; without TLS, or trusting
// another CA, it is refused, in one line that never shows the password.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TeamDatabase } from '../../../server/team/database.ts';
import { databaseTarget } from '../../../server/team/url.ts';
import { startCluster } from '../../support/pg-cluster.mjs';
import { PG_PASSWORD, type PgCluster } from '../../support/postgres.ts';

let cluster: PgCluster;
let other: PgCluster;
before(async () => {
  [cluster, other] = (await Promise.all([startCluster({ tls: true }), startCluster({ tls: true })])) as [
    PgCluster,
    PgCluster,
  ];
});
after(() => {
  cluster?.stop();
  other?.stop();
});

async function opens(url: string): Promise<string | null> {
  const db = new TeamDatabase(databaseTarget(url));
  try {
    await db.open();
    const rows = await db.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
    assert.equal(rows[0]?.ssl, true, 'the connection is encrypted');
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await db.close();
  }
}

test('sslmode=verify-full with the server CA connects, encrypted', async () => {
  assert.equal(await opens(cluster.url('postgres')), null);
});

test('without TLS, or trusting another CA, the database is refused in one line without the password', async () => {
  const base = `postgres://cos:${PG_PASSWORD}@127.0.0.1:${cluster.port}/postgres`;
  const plain = await opens(`${base}?sslmode=disable`);
  assert.match(
    plain ?? '',
    new RegExp(`cannot reach the team database 127\\.0\\.0\\.1:${cluster.port}/postgres`),
  );
  assert.match(plain ?? '', /no encryption|pg_hba/);
  const wrongCa = await opens(`${base}?sslmode=verify-full&sslrootcert=${encodeURIComponent(other.ca!)}`);
  assert.match(wrongCa ?? '', /cannot reach the team database/);
  assert.match(wrongCa ?? '', /certificate/i);
  for (const m of [plain, wrongCa]) {
    assert.ok(!m!.includes(PG_PASSWORD));
    assert.ok(!m!.includes('\n'));
  }
});
