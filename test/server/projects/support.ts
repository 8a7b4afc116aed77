// What the multi-project tests share: real git repositories whose every name carries their own word, and
// one real hub serving several of them (the registry under a temporary COS_HOME, the Fastify app on a
// real port, each project's hub opened from the registry as `cos serve` opens it).
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../server/app.ts';
import { loadConfig } from '../../../server/config.ts';
import { ExtractHelpers } from '../../../server/graph/helpers.ts';
import { PassQueue } from '../../../server/graph/pass-queue.ts';
import { createHub, type Hub } from '../../../server/hub.ts';
import { ProjectHubs } from '../../../server/projects/hubs.ts';
import { ProjectRegistry } from '../../../server/projects/registry.ts';

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * A repository whose every name carries its own word (`alpha`, `beta`, `gamma`): tasks, code, docs,
 * committed. Task i > 1 depends on task i - 1.
 */
export function makeRepo(root: string, word: string, tasks: number): { repo: string; head: string } {
  const repo = join(root, word);
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  mkdirSync(join(repo, 'src'), { recursive: true });
  const Word = word[0]!.toUpperCase() + word.slice(1);
  for (let i = 1; i <= tasks; i++) {
    writeFileSync(
      join(repo, `docs/tasks/TASK-${i}-${word}-${i}.md`),
      `---\nid: TASK-${i}\ntitle: ${Word} task ${i}\nstatus: icebox\nkind: feature\npriority: P2\nversion: 1\n${
        i > 1 ? `depends_on: [TASK-${i - 1}]\n` : ''
      }---\n\n## Outcome\n\n${Word} work.\n`,
    );
  }
  writeFileSync(
    join(repo, `src/${word}.ts`),
    `export function ${word}Only(n: number): number {\n  return n + 1;\n}\n\nexport class ${Word}Store {\n  get(): number {\n    return ${word}Only(1);\n  }\n}\n`,
  );
  writeFileSync(
    join(repo, `src/${word}-main.ts`),
    `import { ${word}Only } from './${word}';\n\nexport const ${word}Three = ${word}Only(2);\n`,
  );
  writeFileSync(
    join(repo, `docs/${word}-guide.md`),
    `---\ntitle: ${Word} guide\ntype: guide\nstatus: ${word}-draft\n---\n# ${Word} guide\n\n## ${Word} setup\n\nRun ${word}Only.\n`,
  );
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', `${word}: first`);
  return { repo: realpathSync(repo), head: git(repo, 'rev-parse', 'HEAD') };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 120_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ProjectsHub {
  defaultHub: Hub;
  projects: ProjectHubs;
  registry: ProjectRegistry;
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The process's extraction helpers, shared by every project's indexer as in `cos serve`. */
  helpers: ExtractHelpers;
  close(): Promise<void>;
}

/**
 * A hub started in `defaultRepo` serving every repository in `registered` too (registered first, under
 * the slugs given), listening on a free port. `env` adds configuration (COS_PROJECT_IDLE_MINUTES …).
 */
export async function startProjectsHub(options: {
  root: string;
  defaultRepo: string;
  registered?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
}): Promise<ProjectsHub> {
  const home = join(options.root, 'home');
  const registry = new ProjectRegistry(home);
  for (const [slug, repo] of Object.entries(options.registered ?? {})) registry.add({ repo, slug });
  const config = loadConfig(
    { COS_REPO: options.defaultRepo, COS_PORT: '0', COS_HOME: home, ...options.env },
    {},
    options.root,
  );
  const passQueue = new PassQueue();
  const helpers = new ExtractHelpers();
  const defaultHub = createHub(config, { logSync: true, passQueue, extractHelpers: helpers });
  const projects = new ProjectHubs(defaultHub, {
    registry,
    open: (c) => createHub(c, { logSync: true, passQueue, extractHelpers: helpers, threadsAtStart: false }),
    pollMs: 100,
  });
  const app = await buildApp(defaultHub, { projects });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  projects.baseUrl = url;
  await defaultHub.start();
  await projects.start();
  return {
    defaultHub,
    projects,
    registry,
    app,
    url,
    helpers,
    async close() {
      await app.close();
      await projects.close();
      await defaultHub.close();
      await helpers.close();
    },
  };
}
