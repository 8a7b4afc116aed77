// What every command's --help ends with: the flags that choose the repository and state every command
// reads (config.ts), and the environment they fall back to. test/server/cli/help.test.ts checks that each
// command's help names every flag the README names for it.
export const CONFIG_FLAGS_HELP = `Every command reads the same configuration (environment first, flags override):
  --repo DIR        the repository (COS_REPO; default the working directory)
  --state-dir DIR   hub.db, logs and module settings (COS_STATE_DIR; default <repo>/.cos)
  --tasks-dir DIR   the task files (COS_TASKS_DIR; default <repo>/docs/tasks)
  --port N          the hub's port (COS_PORT; default 9188)
  --host H          the address it binds (COS_HOST; default 127.0.0.1; anything else needs COS_HUB_TOKEN)
  --database-url URL  the team's PostgreSQL (COS_DATABASE_URL; default none: hub.db holds everything);
                    COS_MACHINE names this machine in the team, COS_TEAM_PROJECT overrides the team key
  -h, --help        this help
COS_HUB_TOKEN, when set, is sent to a running hub by every command that asks it.`;

export const USAGE = `usage: cos [serve] [--port N] [--host H] [--repo DIR] [--state-dir DIR] [--tasks-dir DIR]
                 [--database-url URL]
       cos index [--force] [path …]
       cos module list | enable <id> | disable <id>
       cos project add [path] [--slug S] [--state-dir DIR] | list | remove <slug>
       cos doctor [--fix]
       cos connect claude-code|codex|gemini [--remove] [--dry-run] [--url URL]
       cos login          a one-time link that signs a browser in (when COS_HUB_TOKEN is set)
       cos --version | --help

cos <command> --help says more about one command. While a hub serves the state directory, index,
module, doctor and login ask that hub instead of changing its state under it.

${CONFIG_FLAGS_HELP}`;

export const PROJECT_HELP = `usage: cos project add [path] [--slug S] [--state-dir DIR] | list | remove <slug>

The registry of repositories one hub serves, each under /p/<slug>/ (kept in COS_HOME; default the
platform's config directory).
  --slug S          the project's name in URLs (default: from the repository's folder name)
  --state-dir DIR   where that project's hub.db and settings live (default <path>/.cos)

${CONFIG_FLAGS_HELP}`;
