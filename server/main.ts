// CLI entry: `cos serve | index | module | doctor`. Reads the configuration, listens, closes gracefully.
import { parseArgs } from 'node:util';
import { DOCTOR_HELP, doctor } from './cli/doctor.ts';
import { USAGE } from './cli/help.ts';
import { INDEX_HELP, indexCommand } from './cli/index.ts';
import { LOGIN_HELP, loginCommand } from './cli/login.ts';
import { MODULE_HELP, moduleCommand } from './cli/module.ts';
import { SERVE_HELP, serve } from './cli/serve.ts';
import { ConfigError, type Flags, loadConfig } from './config.ts';

/** Each command's --help (in its module); `cos --help` without a command prints the overview. */
const HELP: Record<string, string> = {
  serve: SERVE_HELP,
  index: INDEX_HELP,
  module: MODULE_HELP,
  doctor: DOCTOR_HELP,
  login: LOGIN_HELP,
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
      force: { type: 'boolean' },
      fix: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command = 'serve', ...rest] = positionals;
  if (values.help) {
    console.log(positionals.length > 0 ? (HELP[command] ?? USAGE) : USAGE);
    return 0;
  }
  const { help: _help, force, fix, ...flags } = values;
  const config = loadConfig(process.env, flags as Flags);
  switch (command) {
    case 'serve':
      return serve(config);
    case 'index':
      return indexCommand(config, rest, force === true);
    case 'module':
      return moduleCommand(config, rest);
    case 'doctor':
      return doctor(config, { fix: fix === true });
    case 'login':
      return loginCommand(config);
    default:
      console.error(`unknown command "${command}"\n${USAGE}`);
      return 2;
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
