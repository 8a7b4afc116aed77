import { createServer } from 'node:net';
import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { ExtractHelpers } from '../graph/helpers.ts';
import { PassQueue } from '../graph/pass-queue.ts';
import { createHub } from '../hub.ts';
import { ProjectHubs } from '../projects/hubs.ts';
import { ProjectRegistry } from '../projects/registry.ts';
import { TeamDatabase } from '../team/database.ts';
import { databaseTarget } from '../team/url.ts';
import { shownEndpoint } from '../telemetry/settings.ts';
import { startTelemetry } from '../telemetry/telemetry.ts';
import { DEFAULT_PROFILE, PROFILE_NAMES, PROFILES, profileUrl } from '../tools/profiles.ts';
import { CONFIG_FLAGS_HELP } from './help.ts';
import { findRunningHub, probeHub, removeRunningHub, writeRunningHub } from './running-hub.ts';

export const SERVE_HELP = `usage: cos serve [--port N] [--host H] [--repo DIR] [--state-dir DIR] [--tasks-dir DIR]

Runs the hub (the default command): MCP at /mcp, REST at /api, the SPA at /. Refuses to start, in one
line, when a hub already serves this state directory or another program holds the port.

${CONFIG_FLAGS_HELP}`;

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Whether something listens on host:port (checked by binding it for a moment). */
function portTaken(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(false)));
  });
}

/** One line naming what holds the port: a cos hub (and its repository) or another program. */
async function portHolder(config: Config): Promise<string> {
  const url = urlOf(
    config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host,
    config.port,
  );
  const probe = await probeHub(url, config.token);
  const what =
    probe?.kind === 'hub'
      ? `another cos hub (${url}/${probe.repository ? `, repository ${probe.repository}` : ''})`
      : probe?.kind === 'unauthorised'
        ? `a cos hub that asks for a token (${url}/)`
        : 'another program';
  return `cos serve: port ${config.port} on ${config.host} is taken by ${what}; stop it, or pass --port (COS_PORT) for this one`;
}

/** Runs the hub until SIGINT/SIGTERM, then stops accepting, ends MCP sessions, lets services finish, closes the database. */
export async function serve(config: Config): Promise<number> {
  // Before anything opens the state directory: a hub that runs on it keeps it, sessions included.
  const running = await findRunningHub(config);
  if (running) {
    console.error(
      `cos serve: a hub already serves ${running.repo} at ${running.url}/ (pid ${running.pid}, state ${config.stateDir}); stop it first, or give this one its own --state-dir`,
    );
    return 1;
  }
  if (config.port !== 0 && (await portTaken(config.host, config.port))) {
    console.error(await portHolder(config));
    return 1;
  }
  // The team's PostgreSQL, when there is one: reachable and migrated before anything is served, or one
  // line naming the database (never its password) and exit 1. One pool for every project served.
  let teamDatabase: TeamDatabase | undefined;
  if (config.databaseUrl !== undefined) {
    teamDatabase = new TeamDatabase(databaseTarget(config.databaseUrl), {
      applicationName: `cos-hub ${config.machine}`,
    });
    try {
      await teamDatabase.open();
    } catch (err) {
      await teamDatabase.close();
      console.error(`cos serve: ${(err as Error).message}`);
      return 1;
    }
  }
  // One full index pass at a time across every project this process serves; the others say "queued".
  const passQueue = new PassQueue();
  // And one set of extraction helper threads: each holds the grammars it loaded, whichever project asks.
  const extractHelpers = new ExtractHelpers();
  // The OpenTelemetry export, only when OTEL_* variables name a collector (the SDK is loaded only then).
  // Shared by every project; a collector that is down costs nothing but counted spans.
  if (config.telemetry.error !== null)
    console.error(`cos serve: OpenTelemetry export is off: ${config.telemetry.error}`);
  const telemetry = await startTelemetry(config.telemetry);
  let hub: ReturnType<typeof createHub>;
  try {
    hub = createHub(config, { passQueue, extractHelpers, teamDatabase, telemetry });
  } catch (err) {
    await telemetry?.shutdown();
    await teamDatabase?.close();
    await extractHelpers.close();
    throw err;
  }
  telemetry?.attachLogger(hub.logger);
  // Every repository in the registry is served by this one process, each under /p/<slug>/.
  const projects = new ProjectHubs(hub, {
    registry: new ProjectRegistry(config.home),
    // A registered project starts its writer threads when first written to: most never are.
    open: (projectConfig) =>
      createHub(projectConfig, {
        passQueue,
        extractHelpers,
        threadsAtStart: false,
        teamDatabase,
        telemetry,
      }),
  });
  const app = await buildApp(hub, { projects });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    await projects.close();
    await hub.close();
    await telemetry?.shutdown();
    await teamDatabase?.close();
    await extractHelpers.close();
    // Taken between the check above and now.
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(await portHolder(config));
      return 1;
    }
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = urlOf(config.host, port);
  projects.baseUrl = base;
  // The address other commands reach this hub at: loopback even when it binds every interface.
  writeRunningHub(
    config,
    urlOf(config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host, port),
  );
  console.log(`cos hub ${base}/  (repository ${config.repo})`);
  console.log(`MCP     ${base}/mcp`);
  // Smaller tool surfaces for agents that do one kind of work (server/tools/profiles.ts).
  for (const name of PROFILE_NAMES.filter((p) => p !== DEFAULT_PROFILE))
    console.log(
      `        ${profileUrl(`${base}/mcp`, name).padEnd(base.length + 17)} ${PROFILES[name].summary}`,
    );
  console.log(`API     ${base}/docs`);
  const otlp = config.telemetry.traces ?? config.telemetry.metrics;
  if (telemetry && otlp) console.log(`OTel    ${shownEndpoint(otlp.url)}  (${otlp.protocol})`);
  if (hub.services.team)
    console.log(
      `Team    ${hub.services.team.key} on ${teamDatabase?.target.shown}  (machine ${config.machine})`,
    );
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
      removeRunningHub(config);
      app
        .close()
        .then(() => projects.close())
        .then(() => hub.close())
        .then(() => telemetry?.shutdown())
        .then(() => teamDatabase?.close())
        .then(() => extractHelpers.close())
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
