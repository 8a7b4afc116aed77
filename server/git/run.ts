// The one place the hub runs git. git is spawned with an argument list (never a shell), a timeout and a
// cap on what it may print, with the repository's own config kept from running programs for a read
// (fsmonitor hooks, external diff and textconv drivers). Revisions are checked before they reach git so
// none can read as an option.
import { spawn } from 'node:child_process';

export type GitFailure = 'missing' | 'not_a_repo' | 'bad_ref' | 'timeout' | 'too_large' | 'failed';

export class GitError extends Error {
  constructor(
    readonly reason: GitFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A commit, ref or range (`a..b`, `a...b`, `HEAD~2`, `v1.2^{}`); never an option. */
export const REF_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._/~^@{}:+-]{0,199}$/;

/** git's well-known id of the empty tree: the "before" of a repository's first commit. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export interface RunOptions {
  timeoutMs: number;
  /** Bytes of stdout kept; past it git is stopped. */
  maxBytes: number;
  /** Past maxBytes: keep what came (cut at the last newline) instead of failing with `too_large`. */
  truncate?: boolean;
  signal?: AbortSignal | undefined;
  /** Exit codes that are answers, not failures (`diff --no-index` exits 1 when the files differ). */
  okExitCodes?: readonly number[];
}

export interface RunResult {
  stdout: string;
  truncated: boolean;
}

/** Settings that stop a repository's config from running a program during a read. */
const SAFE_CONFIG = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.quotepath=off',
  '-c',
  'diff.external=',
  '-c',
  'log.showSignature=false',
];

const STDERR_CAP = 16 * 1024;

const BAD_REF =
  /unknown revision|bad revision|ambiguous argument|invalid object name|bad object|could not access|invalid revision range|not a valid|needed a single revision|does not have any commits/i;

export function runGit(repo: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new GitError('timeout', 'the call was cancelled'));
    const child = spawn('git', [...SAFE_CONFIG, ...args], {
      cwd: repo,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      // No pager, no prompt, no optional locks taken by a read, stable English messages to classify.
      env: {
        ...process.env,
        GIT_OPTIONAL_LOCKS: '0',
        GIT_PAGER: 'cat',
        GIT_TERMINAL_PROMPT: '0',
        LC_ALL: 'C',
      },
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    let outcome: 'timeout' | 'too_large' | 'truncated' | null = null;
    const stop = (why: 'timeout' | 'too_large' | 'truncated') => {
      if (outcome === null) outcome = why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('timeout');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (outcome !== null) return;
      const room = options.maxBytes - bytes;
      if (chunk.length <= room) {
        chunks.push(chunk);
        bytes += chunk.length;
        return;
      }
      if (options.truncate) {
        chunks.push(chunk.subarray(0, room));
        bytes += room;
        stop('truncated');
      } else stop('too_large');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_CAP) stderr += chunk.toString('utf8');
    });
    const done = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (err: NodeJS.ErrnoException) => {
      done();
      reject(
        err.code === 'ENOENT'
          ? new GitError('missing', 'git is not installed on this machine')
          : new GitError('failed', `git could not start (${err.code ?? 'error'})`),
      );
    });
    child.on('close', (code) => {
      done();
      if (outcome === 'timeout')
        return reject(new GitError('timeout', `git did not answer within ${options.timeoutMs} ms`));
      if (outcome === 'too_large')
        return reject(
          new GitError('too_large', `git printed more than ${options.maxBytes} bytes; ask for less`),
        );
      const out = Buffer.concat(chunks).toString('utf8');
      if (outcome === 'truncated') {
        // A cut mid-line (or mid-character) would parse as a wrong last line: keep whole lines only.
        const end = out.lastIndexOf('\n');
        return resolve({ stdout: end === -1 ? '' : out.slice(0, end + 1), truncated: true });
      }
      if (code === 0 || (code !== null && options.okExitCodes?.includes(code)))
        return resolve({ stdout: out, truncated: false });
      if (/not a git repository/i.test(stderr))
        return reject(new GitError('not_a_repo', 'the repository is not a git working tree'));
      const first = stderr.split('\n').find((l) => l.trim() !== '') ?? '';
      if (BAD_REF.test(stderr))
        return reject(new GitError('bad_ref', first.slice(0, 200) || 'unknown revision'));
      reject(new GitError('failed', first.slice(0, 200) || `git exited with ${code}`));
    });
  });
}
