// PostgreSQL for the team tests: a real cluster, never a mock. `teamDatabaseUrl()` gives each test a
// database of its own in the run's shared cluster (scripts/run-tests.mjs starts one and passes
// COS_TEST_PG_ADMIN_URL; a test file run by itself starts its own, stopped when the process exits).
// `ownCluster()` is a cluster of the test's own, for tests that stop and start the server.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PG_PASSWORD, startCluster } from './pg-cluster.mjs';

export { PG_PASSWORD };

export interface PgCluster {
  host: string;
  port: number;
  dir: string;
  ca: string | undefined;
  adminUrl: string;
  url(db: string): string;
  psql(sql: string, db?: string): string;
  pause(): void;
  resume(): void;
  stop(): void;
}

export const ownCluster = (options: { tls?: boolean } = {}): Promise<PgCluster> =>
  startCluster(options) as Promise<PgCluster>;

let shared: Promise<string> | undefined;

function sharedAdminUrl(): Promise<string> {
  const fromRunner = process.env.COS_TEST_PG_ADMIN_URL;
  if (fromRunner) return Promise.resolve(fromRunner);
  shared ??= ownCluster().then((cluster) => {
    process.once('exit', () => cluster.stop());
    return cluster.adminUrl;
  });
  return shared;
}

/** Runs one statement as the cluster's superuser. */
export async function adminQuery(adminUrl: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A new, empty database in the shared cluster; `drop()` removes it (and ends its connections). */
export async function teamDatabaseUrl(admin?: string): Promise<TestDatabase> {
  const adminUrl = admin ?? (await sharedAdminUrl());
  const name = `cos_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = adminUrl.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  return {
    url,
    name,
    async drop() {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    },
  };
}
