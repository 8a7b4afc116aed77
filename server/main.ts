// CLI entry: `cos serve | index | module | doctor | connect | login`. Reads the configuration, listens,
// closes gracefully.
// Each command is imported when it runs, so `cos --version` or `cos module list` loads neither the
// HTTP stack nor the graph (the build turns each import into a chunk of its own).
import { parseArgs } from 'node:util';
import { startupFailure } from './cli/startup-error.ts';
import { ConfigError, type Flags, loadConfig } from './config.ts';
import { HUB_VERSION } from './version.ts';

const USAGE = `usage: cos [serve] [--port N] [--host H] [--repo DIR] [--state-dir DIR]
       cos index [--force] [path …]
       cos module list | enable <id> | disable <id>
       cos project add [path] [--slug S] [--state-dir DIR] | list | remove <slug>
       cos doctor
       cos connect claude-code|codex|gemini [--remove] [--dry-run] [--url URL]
       cos login          a one-time link that signs a browser in (when COS_HUB_TOKEN is set)
       cos --version | --help

Environment: COS_PORT (9188), COS_HOST (127.0.0.1), COS_REPO (.), COS_STATE_DIR (<repo>/.cos),
COS_HUB_TOKEN (required to bind anything but loopback), COS_TASKS_DIR, COS_AGENT_DIR,
COS_HOME (the registry of projects; default the platform's config directory).`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      repo: { type: 'string' },
      'state-dir': { type: 'string' },
      'tasks-dir': { type: 'string' },
      force: { type: 'boolean' },
      remove: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      url: { type: 'string' },
      slug: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.version) {
    console.log(HUB_VERSION);
    return 0;
  }
  const { help: _help, version: _version, force, slug, remove, 'dry-run': dryRun, url, ...flags } = values;
  const config = loadConfig(process.env, flags as Flags);
  const [command = 'serve', ...rest] = positionals;
  try {
    switch (command) {
      case 'serve':
        return await (await import('./cli/serve.ts')).serve(config);
      case 'index':
        return await (await import('./cli/index.ts')).indexCommand(config, rest, force === true);
      case 'module':
        return (await import('./cli/module.ts')).moduleCommand(config, rest);
      case 'project':
        return await (await import('./cli/project.ts')).projectCommand(config, rest, {
          slug,
          stateDir: flags['state-dir'],
        });
      case 'doctor':
        return await (await import('./cli/doctor.ts')).doctor(config);
      case 'connect':
        return (await import('./cli/connect.ts')).connectCommand(config, rest, { remove, dryRun, url });
      case 'login':
        return await (await import('./cli/login.ts')).loginCommand(config);
      default:
        console.error(`unknown command "${command}"\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    const line = startupFailure(err, config);
    if (line === undefined) throw err;
    console.error(line);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof ConfigError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      console.error(`cos: ${(err as Error).message}`);
      process.exitCode = 2;
      return;
    }
    console.error(err);
    process.exitCode = 1;
  },
);
