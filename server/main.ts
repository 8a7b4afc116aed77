// CLI entry: `cos serve | index | module | doctor`. Reads the configuration, listens, closes gracefully.
import { parseArgs } from 'node:util';
import { connectCommand } from './cli/connect.ts';
import { doctor } from './cli/doctor.ts';
import { indexCommand } from './cli/index.ts';
import { loginCommand } from './cli/login.ts';
import { moduleCommand } from './cli/module.ts';
import { serve } from './cli/serve.ts';
import { ConfigError, type Flags, loadConfig } from './config.ts';

const USAGE = `usage: cos [serve] [--port N] [--host H] [--repo DIR] [--state-dir DIR]
       cos index [--force] [path …]
       cos module list | enable <id> | disable <id>
       cos doctor
       cos connect claude-code|codex|gemini [--remove] [--dry-run] [--url URL]
       cos login          a one-time link that signs a browser in (when COS_HUB_TOKEN is set)

Environment: COS_PORT (9188), COS_HOST (127.0.0.1), COS_REPO (.), COS_STATE_DIR (<repo>/.cos),
COS_HUB_TOKEN (required to bind anything but loopback), COS_TASKS_DIR, COS_AGENT_DIR.`;

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
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const { help: _help, force, remove, 'dry-run': dryRun, url, ...flags } = values;
  const config = loadConfig(process.env, flags as Flags);
  const [command = 'serve', ...rest] = positionals;
  switch (command) {
    case 'serve':
      return serve(config);
    case 'index':
      return indexCommand(config, rest, force === true);
    case 'module':
      return moduleCommand(config, rest);
    case 'doctor':
      return doctor(config);
    case 'connect':
      return connectCommand(config, rest, { remove, dryRun, url });
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
