// A team for tests: a bare `origin` in a temp directory, one clone of it per machine (each with the same
// task files, committed and pushed), a database of the test's own in a real PostgreSQL cluster, and one
// real hub per clone, each with its own pool (as separate machines have), its own COS_MACHINE and its
// own SQLite. In-process hubs by default; `startTeamHubProcess` runs `cos serve` for tests that kill it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.ts';
import { type Config, loadConfig } from '../../server/config.ts';
import { createHub, type Hub } from '../../server/hub.ts';
import { TeamDatabase } from '../../server/team/database.ts';
import { databaseTarget } from '../../server/team/url.ts';
import { startHubProcess } from './hub-process.ts';
import { type TestDatabase, teamDatabaseUrl } from './postgres.ts';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Team Test',
      GIT_AUTHOR_EMAIL: 'team@example.com',
      GIT_COMMITTER_NAME: 'Team Test',
      GIT_COMMITTER_EMAIL: 'team@example.com',
    },
  });
}

/** A task file as people write them: front matter, the known sections. */
export function taskFile(n: number, fields: Record<string, string> = {}): string {
  const front = {
    id: `TASK-${n}`,
    title: `Task ${n}`,
    status: 'icebox',
    priority: 'P2',
    kind: 'feature',
    labels: '[ready]',
    ...fields,
  };
  return `---\n${Object.entries(front)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n---\n\n## Outcome\n\nTask ${n} is done.\n\n## Acceptance\n\n- it works\n\n## Work Log\n`;
}

export interface TeamRepos {
  root: string;
  origin: string;
  clones: string[];
  /** In clone `i`: git pull (what a machine does when git brings the other's commits). */
  pull(i: number): void;
  /** In clone `i`: commit everything and push. */
  push(i: number, message?: string): void;
  remove(): void;
}

/** A bare origin with `tasks` task files on main, and `machines` clones of it. */
export function teamRepos(machines: number, tasks: number, name = 'team'): TeamRepos {
  const root = mkdtempSync(join(tmpdir(), `cos-${name}-`));
  const origin = join(root, 'origin.git');
  git(root, 'init', '--bare', '-q', '-b', 'main', origin);
  const seed = join(root, 'seed');
  git(root, 'clone', '-q', origin, seed);
  mkdirSync(join(seed, 'docs', 'tasks'), { recursive: true });
  for (let n = 1; n <= tasks; n++)
    writeFileSync(
      join(seed, 'docs', 'tasks', `TASK-${n}.md`),
      taskFile(n, { priority: n % 3 === 0 ? 'P1' : 'P2' }),
    );
  writeFileSync(join(seed, '.gitignore'), '.cos/\n');
  writeFileSync(join(seed, 'README.md'), '# team repo\n');
  git(seed, 'checkout', '-q', '-b', 'main');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'tasks');
  git(seed, 'push', '-q', 'origin', 'main');
  const clones: string[] = [];
  for (let i = 0; i < machines; i++) {
    const clone = join(root, `machine-${i}`);
    git(root, 'clone', '-q', origin, clone);
    clones.push(clone);
  }
  return {
    root,
    origin,
    clones,
    pull: (i) => void git(clones[i]!, 'pull', '-q', '--no-rebase', 'origin', 'main'),
    push: (i, message = 'board') => {
      git(clones[i]!, 'add', '-A');
      git(clones[i]!, 'commit', '-q', '-m', message);
      git(clones[i]!, 'push', '-q', 'origin', 'HEAD:main');
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface TeamHub {
  hub: Hub;
  app: FastifyInstance;
  config: Config;
  database: TeamDatabase;
  url: string;
  close(): Promise<void>;
}

/** A hub on `repo` in the team of `databaseUrl`, as machine `machine`, listening on a free port. */
export async function startTeamHub(
  repo: string,
  databaseUrl: string,
  machine: string,
  env: Record<string, string> = {},
): Promise<TeamHub> {
  const config = loadConfig(
    {
      COS_REPO: repo,
      COS_PORT: '0',
      COS_DATABASE_URL: databaseUrl,
      COS_MACHINE: machine,
      COS_RATE_LIMIT_RPS: '0',
      ...env,
    },
    {},
    repo,
  );
  const database = new TeamDatabase(databaseTarget(databaseUrl));
  await database.open();
  const hub = createHub(config, { logSync: true, teamDatabase: database });
  const app = await buildApp(hub);
  await app.listen({ port: 0, host: '127.0.0.1' });
  await hub.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let closed = false;
  return {
    hub,
    app,
    config,
    database,
    url: `http://127.0.0.1:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await hub.close();
      await database.close();
    },
  };
}

export interface Team {
  repos: TeamRepos;
  db: TestDatabase;
  hubs: TeamHub[];
  close(): Promise<void>;
}

/** `machines` hubs (machine-a, machine-b, …) on clones of one origin with `tasks` ready tasks. */
export async function startTeam(
  machines: number,
  tasks: number,
  env: Record<string, string> = {},
): Promise<Team> {
  const repos = teamRepos(machines, tasks);
  const db = await teamDatabaseUrl();
  const hubs: TeamHub[] = [];
  for (let i = 0; i < machines; i++)
    hubs.push(await startTeamHub(repos.clones[i]!, db.url, `machine-${String.fromCharCode(97 + i)}`, env));
  return {
    repos,
    db,
    hubs,
    async close() {
      await Promise.all(hubs.map((h) => h.close()));
      await db.drop();
      repos.remove();
    },
  };
}

/** `cos serve` on `repo` in the team of `databaseUrl` as its own process (kill -9, restarts). */
export function startTeamHubProcess(
  repo: string,
  databaseUrl: string,
  machine: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
) {
  return startHubProcess(repo, { COS_DATABASE_URL: databaseUrl, COS_MACHINE: machine, ...env }, nodeArgs);
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `ms`. */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 5000,
  what = 'the condition',
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const out = await check();
    if (out !== undefined && out !== false) return out;
    if (Date.now() > until) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A REST call on a team hub through its app (with the Host it listens on): asserts a 200 and answers the
 * envelope's data.
 */
export async function restData<T>(
  h: TeamHub,
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  payload?: object,
): Promise<T> {
  const res = await h.app.inject({
    method,
    url,
    headers: { host: new URL(h.url).host },
    ...(payload ? { payload } : {}),
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { data: T }).data;
}
