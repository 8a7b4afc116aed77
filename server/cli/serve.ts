import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { PassQueue } from '../graph/pass-queue.ts';
import { createHub } from '../hub.ts';
import { ProjectHubs } from '../projects/hubs.ts';
import { ProjectRegistry } from '../projects/registry.ts';
import { DEFAULT_PROFILE, PROFILE_NAMES, PROFILES, profileUrl } from '../tools/profiles.ts';

/** Runs the hub until SIGINT/SIGTERM, then stops accepting, ends MCP sessions, lets services finish, closes the database. */
export async function serve(config: Config): Promise<number> {
  // One full index pass at a time across every project this process serves; the others say "queued".
  const passQueue = new PassQueue();
  const hub = createHub(config, { passQueue });
  // Every repository in the registry is served by this one process, each under /p/<slug>/.
  const projects = new ProjectHubs(hub, {
    registry: new ProjectRegistry(config.home),
    open: (projectConfig) => createHub(projectConfig, { passQueue }),
  });
  const app = await buildApp(hub, { projects });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = `http://${host}:${port}`;
  projects.baseUrl = base;
  console.log(`cos hub ${base}/  (repository ${config.repo})`);
  console.log(`MCP     ${base}/mcp`);
  // Smaller tool surfaces for agents that do one kind of work (server/tools/profiles.ts).
  for (const name of PROFILE_NAMES.filter((p) => p !== DEFAULT_PROFILE))
    console.log(
      `        ${profileUrl(`${base}/mcp`, name).padEnd(base.length + 17)} ${PROFILES[name].summary}`,
    );
  console.log(`API     ${base}/docs`);
  if (config.token !== undefined) {
    // The SPA cannot send the token; this link (good once, for ten minutes) sets a login cookie instead.
    const { code } = app.logins.issue();
    const open = config.host === '0.0.0.0' || config.host === '::' ? `http://127.0.0.1:${port}` : base;
    console.log(`Browser ${open}/login?code=${code}  (one-time link; \`cos login\` prints a new one)`);
  }
  console.log(`\nAdd it to Claude Code:\n  claude mcp add --transport http cos ${base}/mcp`);
  void hub.start().catch((err: unknown) => hub.logger.error({ err }, 'a background service failed to start'));
  await projects.start();
  const others = projects.list().filter((p) => !p.isDefault);
  for (const p of others) console.log(`Project ${p.slug.padEnd(12)} ${base}/p/${p.slug}/mcp  (${p.repo})`);
  if (!projects.default.registered) {
    console.log(
      `\nThis repository is not in the registry (${config.home}); \`cos project add\` lists it on the home page with the others.`,
    );
  }

  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${signal}: closing…`);
      app
        .close()
        .then(() => projects.close())
        .then(() => hub.close())
        .then(
          () => resolve(0),
          (err: unknown) => {
            console.error(err);
            resolve(1);
          },
        );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
