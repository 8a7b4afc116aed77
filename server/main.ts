// CLI entry: `cos serve | index | module | doctor | connect | login`. Reads the configuration, listens,
// closes gracefully.
// Each command is imported when it runs, so `cos --version` or `cos module list` loads neither the
// HTTP stack nor the graph (the build turns each import into a chunk of its own).
import { parseArgs } from 'node:util';
import { PROJECT_HELP, USAGE } from './cli/help.ts';
import { startupFailure } from './cli/startup-error.ts';
import { ConfigError, type Flags, loadConfig } from './config.ts';
import { HUB_VERSION } from './version.ts';

// `cos doctor | head` closes the pipe before the command is done writing: that reader has what it wanted,
// so what is left to write goes nowhere and the command ends as it would have (its exit code, no stack
// trace from an unhandled EPIPE); `cos serve | head` keeps serving.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stream.write = () => true;
  });
}

/** Each command's --help, from its module (imported only to print it); `cos --help` prints the overview. */
const HELP: Record<string, () => Promise<string>> = {
  serve: async () => (await import('./cli/serve.ts')).SERVE_HELP,
  index: async () => (await import('./cli/index.ts')).INDEX_HELP,
  module: async () => (await import('./cli/module.ts')).MODULE_HELP,
  doctor: async () => (await import('./cli/doctor.ts')).DOCTOR_HELP,
  login: async () => (await import('./cli/login.ts')).LOGIN_HELP,
  connect: async () => (await import('./cli/connect.ts')).CONNECT_HELP,
  project: async () => PROJECT_HELP,
};

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
      'database-url': { type: 'string' },
      force: { type: 'boolean' },
      fix: { type: 'boolean' },
      remove: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      url: { type: 'string' },
      slug: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  const [command = 'serve', ...rest] = positionals;
  if (values.help) {
    const help = positionals.length > 0 ? HELP[command] : undefined;
    console.log(help ? await help() : USAGE);
    return 0;
  }
  if (values.version) {
    console.log(HUB_VERSION);
    return 0;
  }
  const {
    help: _help,
    version: _version,
    force,
    fix,
    slug,
    remove,
    'dry-run': dryRun,
    url,
    ...flags
  } = values;
  const config = loadConfig(process.env, flags as Flags);
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
        return await (await import('./cli/doctor.ts')).doctor(config, { fix: fix === true });
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
