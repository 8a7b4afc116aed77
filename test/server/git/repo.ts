// A real git repository made in the test: commits with an author and a fixed clock, branches, merges and
// renames, through the git command line as a person would make them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TestRepo {
  dir: string;
  git(...args: string[]): string;
  write(path: string, text: string): void;
  /** Commits everything with `message` at `when` (ISO) by `author`; returns the sha. */
  commit(message: string, when: string, author?: string): string;
  remove(): void;
}

export function makeRepo(prefix = 'cos-git-'): TestRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const run = (args: string[], env: Record<string, string> = {}) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Ada',
        GIT_AUTHOR_EMAIL: 'ada@example.com',
        GIT_COMMITTER_NAME: 'Ada',
        GIT_COMMITTER_EMAIL: 'ada@example.com',
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: dir,
        ...env,
      },
    }).trim();
  run(['init', '-q', '-b', 'main']);
  return {
    dir,
    git: (...args) => run(args),
    write(path, text) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    },
    commit(message, when, author = 'Ada') {
      run(['add', '-A']);
      run(['commit', '-q', '--allow-empty', '-m', message], {
        GIT_AUTHOR_DATE: when,
        GIT_COMMITTER_DATE: when,
        GIT_AUTHOR_NAME: author,
      });
      return run(['rev-parse', 'HEAD']);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
