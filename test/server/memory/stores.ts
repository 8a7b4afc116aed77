// The two memory stores the memory tests run against: hub.db's SQLite (the embedded default) and a team's
// PostgreSQL (a fresh database of the test's own in the shared cluster, migrated as `cos serve` does).
// A test takes `team` from what `open()` gives and hands it to createMemoryService; nothing else differs.
import pino from 'pino';
import { TeamDatabase } from '../../../server/team/database.ts';
import { Team } from '../../../server/team/team.ts';
import { databaseTarget } from '../../../server/team/url.ts';
import { teamDatabaseUrl } from '../../support/postgres.ts';

export interface MemoryBacking {
  /** Undefined for SQLite: the service then uses the hub's own file. */
  team: Team | undefined;
  close(): Promise<void>;
}

export interface MemoryStoreKind {
  name: 'sqlite' | 'postgres';
  open(): Promise<MemoryBacking>;
}

export const sqliteStore: MemoryStoreKind = {
  name: 'sqlite',
  open: async () => ({ team: undefined, close: async () => {} }),
};

export const postgresStore: MemoryStoreKind = {
  name: 'postgres',
  async open() {
    const database = await teamDatabaseUrl();
    const db = new TeamDatabase(databaseTarget(database.url));
    await db.open();
    const team = new Team(db, 'example.com/org/memory-test', 'machine-a', '/repo', pino({ level: 'silent' }));
    await team.start();
    return {
      team,
      async close() {
        await team.close();
        await db.close();
        await database.drop();
      },
    };
  },
};

export const MEMORY_STORES: MemoryStoreKind[] = [sqliteStore, postgresStore];
