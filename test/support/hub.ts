// Real parts for tests: a temp repository and state directory, a real SQLite file, the real Fastify app
// (inject or a real port), and the official MCP SDK Client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.ts';
import { type Config, loadConfig } from '../../server/config.ts';
import { type CreateHubOptions, createHub, type Hub } from '../../server/hub.ts';
import { TeamDatabase } from '../../server/team/database.ts';
import { databaseTarget } from '../../server/team/url.ts';
import { teamDatabaseUrl } from './postgres.ts';

/**
 * COS_TEST_HUB_STORE=postgres (test/server/team/agents-on-postgres.test.ts sets it): every hub these
 * tests start is in a team of its own on a real PostgreSQL (one database for the file), so the same
 * tests check the hub whose agents, hook events, conflicts and tool calls go to the team too.
 */
export const hubStore = process.env.COS_TEST_HUB_STORE === 'postgres' ? 'postgres' : 'sqlite';
const sharedTeamDatabase =
  hubStore === 'postgres'
    ? await teamDatabaseUrl().then(async (d) => {
        const db = new TeamDatabase(databaseTarget(d.url));
        await db.open();
        return db;
      })
    : undefined;

export interface TestHub {
  hub: Hub;
  app: FastifyInstance;
  config: Config;
  dir: string;
  /** Base URL once listen() was called. */
  url: string;
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function startTestHub(
  options: CreateHubOptions & { env?: Record<string, string>; listen?: boolean } = {},
): Promise<TestHub> {
  const dir = mkdtempSync(join(tmpdir(), 'cos-hub-test-'));
  const team =
    sharedTeamDatabase && !options.teamDatabase
      ? { env: { COS_TEAM_PROJECT: `hub-test:${dir}` }, options: { teamDatabase: sharedTeamDatabase } }
      : { env: {}, options: {} };
  const config = loadConfig({ COS_REPO: dir, COS_PORT: '0', ...team.env, ...options.env }, {}, dir);
  const hub = createHub(config, { logSync: true, ...team.options, ...options });
  const app = await buildApp(hub);
  const t: TestHub = {
    hub,
    app,
    config,
    dir,
    url: '',
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      t.url = `http://127.0.0.1:${port}`;
      return t.url;
    },
    async close() {
      await app.close();
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (options.listen) await t.listen();
  return t;
}

export async function connectClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'cos-hub-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}
