// Who is in a team: the team key (one per repository, shared by every clone of it) and this machine's
// name. The key is the normalised URL of the clone's `origin` remote, so
// `git@github.com:Org/Repo.git`, `https://user:token@github.com/Org/Repo` and `ssh://git@github.com/Org/Repo/`
// are one team; COS_TEAM_PROJECT overrides it (a repository without a remote, or two teams on one).
import { spawnSync } from 'node:child_process';
import { ConfigError } from '../config.ts';

/**
 * The host and path of a git remote URL, lower-cased host, without credentials, port of the default
 * scheme, `.git` or trailing slashes: `github.com/Org/Repo`. A local path stays a path (its real form).
 */
export function normaliseRemote(url: string): string {
  const text = url.trim();
  // scp-like: [user@]host:path (no scheme, a colon before the first slash)
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(text);
  let host: string;
  let path: string;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && scp) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    const m = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?([^/:]*)(?::(\d+))?(\/.*)?$/i.exec(text);
    if (!m) return text.replace(/\/+$/, '').replace(/\.git$/, '');
    const scheme = m[1]!.toLowerCase();
    if (scheme === 'file') return (m[4] ?? '').replace(/\/+$/, '').replace(/\.git$/, '');
    const port = m[3];
    const defaultPort = { http: '80', https: '443', ssh: '22', git: '9418' }[scheme];
    host = m[2]! + (port && port !== defaultPort ? `:${port}` : '');
    path = m[4] ?? '';
  }
  path = path
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  return `${host.toLowerCase()}/${path}`;
}

/**
 * The team key of the repository: COS_TEAM_PROJECT, else its origin's normalised URL. A repository
 * without an origin remote cannot join a team by itself: say how to name one.
 */
export function resolveTeamKey(repo: string, override: string | undefined): string {
  if (override) return override;
  const out = spawnSync('git', ['config', '--get', 'remote.origin.url'], {
    cwd: repo,
    encoding: 'utf8',
    timeout: 5000,
  });
  const url = out.status === 0 ? out.stdout.trim() : '';
  if (!url)
    throw new ConfigError(
      'COS_DATABASE_URL is set but this repository has no origin remote to name its team: add one (git remote add origin …) or set COS_TEAM_PROJECT',
    );
  return normaliseRemote(url);
}
