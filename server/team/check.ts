// What `cos doctor` says of the team database: reachable, how much of the hub's schema it has, and the
// team this clone joins. Read-only: the schema is migrated by `cos serve`, never by a check.
import pg from 'pg';
import type { Config } from '../config.ts';
import { CONNECT_TIMEOUT_MS, listTeamMigrations } from './database.ts';
import { resolveTeamKey } from './identity.ts';
import { databaseTarget, redactSecrets } from './url.ts';

export interface TeamCheck {
  ok: boolean;
  detail: string;
}

export async function checkTeamDatabase(config: Config): Promise<TeamCheck | undefined> {
  if (config.databaseUrl === undefined) return undefined;
  let target: ReturnType<typeof databaseTarget>;
  let team: string;
  try {
    target = databaseTarget(config.databaseUrl);
    team = resolveTeamKey(config.repo, config.teamProject);
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
  const client = new pg.Client({
    connectionString: target.url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'cos doctor',
  });
  try {
    await client.connect();
    const known = listTeamMigrations().length;
    // A relation that does not exist fails a query that names it, even in a branch not taken: ask first.
    const { rows: present } = await client.query<{ present: boolean }>(
      "SELECT to_regclass('cos_schema_migrations') IS NOT NULL AS present",
    );
    const { rows } = present[0]?.present
      ? await client.query<{ n: string }>('SELECT count(*) AS n FROM cos_schema_migrations')
      : { rows: [{ n: '0' }] };
    const applied = Number(rows[0]?.n ?? 0);
    const schema =
      applied >= known
        ? `schema current (${applied} migrations)`
        : `${applied} of ${known} migrations applied (cos serve applies the rest at start)`;
    return {
      ok: true,
      detail: `${target.name} reachable, ${schema}; team ${team}, machine ${config.machine}`,
    };
  } catch (err) {
    const e = err as { message?: string; code?: string };
    return {
      ok: false,
      detail: `cannot reach ${target.name}: ${redactSecrets(e.message ?? String(err), target)}${e.code ? ` [${e.code}]` : ''}`,
    };
  } finally {
    await client.end().catch(() => {});
  }
}
