import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';
import { type ProjectEntry, ProjectRegistry, RegistryError } from '../projects/registry.ts';

const USAGE = 'usage: cos project add [path] [--slug S] [--state-dir DIR] | list | remove <slug>';

export interface ProjectFlags {
  slug?: string | undefined;
  /** --state-dir as typed, when it was: the new project's state directory. */
  stateDir?: string | undefined;
}

/** The hub's base URL as the CLI's configuration names it. */
function baseUrl(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

function describe(entry: ProjectEntry, config: Config): string[] {
  const base = `${baseUrl(config)}/p/${entry.slug}`;
  return [`  MCP  ${base}/mcp`, `  web  ${base}/board`];
}

/**
 * `cos project add [path] | list | remove <slug>`: edits `$COS_HOME/projects.json`. A running hub
 * notices the change within a second or two and opens (or closes) the project without a restart.
 */
export function projectCommand(config: Config, args: string[], flags: ProjectFlags = {}): number {
  const [action = 'list', target, ...extra] = args;
  const registry = new ProjectRegistry(config.home);
  try {
    if (action === 'list' && target === undefined) {
      const { entries, problems } = registry.read();
      for (const p of problems) console.error(`warning: ${registry.file}: ${p}`);
      if (entries.length === 0) {
        console.log(`no projects registered (${registry.file}); add one with \`cos project add [path]\``);
        return 0;
      }
      const width = Math.max(...entries.map((e) => e.slug.length));
      for (const e of entries) {
        const missing = existsSync(e.repo) ? '' : '  (missing: the directory is gone)';
        console.log(`${e.slug.padEnd(width)}  ${e.repo}${missing}`);
        if (e.stateDir !== `${e.repo}/.cos`) console.log(`${' '.repeat(width)}  state ${e.stateDir}`);
      }
      return 0;
    }
    if (action === 'add' && extra.length === 0) {
      const entry = registry.add({ repo: target ?? config.repo, slug: flags.slug, stateDir: flags.stateDir });
      console.log(`added "${entry.slug}": ${entry.repo}`);
      if (entry.stateDir !== `${entry.repo}/.cos`) console.log(`  state ${entry.stateDir}`);
      for (const line of describe(entry, config)) console.log(line);
      console.log('A running hub serves it within a few seconds; no restart needed.');
      return 0;
    }
    if (action === 'remove' && target !== undefined && extra.length === 0) {
      const entry = registry.remove(target);
      console.log(`removed "${entry.slug}" (${entry.repo}); its data stays in ${entry.stateDir}`);
      return 0;
    }
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    console.error(`cos project ${action}: ${err.message}`);
    return err.kind === 'validation' ? 2 : 1;
  }
  console.error(USAGE);
  return 2;
}
