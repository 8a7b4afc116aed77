// Changed lines from git, mapped onto the graph. git runs as a child process with an argument list
// (never a shell string) and a timeout; refs are checked before they reach it so none reads as an option.
import { execFile } from 'node:child_process';
import type { Db } from '../../db/open.ts';
import type { GraphReader, NodeRow } from './store.ts';

export class GitError extends Error {
  constructor(
    readonly reason: 'missing' | 'not_a_repo' | 'bad_ref' | 'timeout' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

/** A commit, ref or range (`a..b`, `a...b`, `HEAD~2`, `v1.2^{}`); never an option. */
export const REF_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._/~^@{}:+-]{0,199}$/;

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export function git(repo: string, args: string[], timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd: repo,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        ...(signal ? { signal } : {}),
        // No pager, no locks taken on the index by a read, stable English messages to classify.
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', LC_ALL: 'C' },
        windowsHide: true,
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
        if (e.code === 'ENOENT')
          return reject(new GitError('missing', 'git is not installed on this machine'));
        if (e.killed || e.signal === 'SIGTERM' || e.name === 'AbortError')
          return reject(new GitError('timeout', `git did not answer within ${timeoutMs} ms`));
        const text = String(stderr);
        if (/not a git repository/i.test(text))
          return reject(new GitError('not_a_repo', 'the repository is not a git working tree'));
        if (
          /unknown revision|bad revision|ambiguous argument|invalid object name|bad object|could not access|invalid revision range|not a valid|needed a single revision/i.test(
            text,
          )
        )
          return reject(new GitError('bad_ref', text.split('\n')[0]?.slice(0, 200) ?? 'unknown revision'));
        reject(new GitError('failed', text.split('\n')[0]?.slice(0, 200) || 'git failed'));
      },
    );
  });
}

export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  /** Changed line ranges on the side that exists (new side; old side for a deleted file). */
  ranges: [number, number][];
  lines_changed: number;
}

/** `git diff --unified=0` output → files and changed line ranges. */
export function parseDiff(text: string): ChangedFile[] {
  const files: ChangedFile[] = [];
  let cur: ChangedFile | undefined;
  let oldPath: string | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      cur = undefined;
      oldPath = undefined;
    } else if (line.startsWith('--- ')) {
      oldPath = line === '--- /dev/null' ? undefined : unquote(line.slice(4)).replace(/^a\//, '');
    } else if (line.startsWith('+++ ')) {
      if (line === '+++ /dev/null') {
        cur = { path: oldPath ?? '', status: 'deleted', ranges: [], lines_changed: 0 };
      } else {
        const path = unquote(line.slice(4)).replace(/^b\//, '');
        cur = { path, status: oldPath === undefined ? 'added' : 'modified', ranges: [], lines_changed: 0 };
      }
      if (cur.path) files.push(cur);
    } else if (line.startsWith('@@') && cur) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m) continue;
      const oldStart = Number(m[1]);
      const oldCount = m[2] === undefined ? 1 : Number(m[2]);
      const newStart = Number(m[3]);
      const newCount = m[4] === undefined ? 1 : Number(m[4]);
      cur.lines_changed += Math.max(oldCount, newCount);
      if (cur.status === 'deleted') cur.ranges.push([oldStart, oldStart + Math.max(oldCount, 1) - 1]);
      // A pure deletion sits between two lines: the symbol around line newStart lost something.
      else cur.ranges.push([Math.max(1, newStart), newStart + Math.max(newCount, 1) - 1]);
    }
  }
  return files;
}

function unquote(p: string): string {
  if (!p.startsWith('"')) return p.replace(/\t$/, '');
  try {
    return JSON.parse(p) as string;
  } catch {
    return p.slice(1, -1);
  }
}

export interface DiffRequest {
  base?: string;
  head?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The working tree against HEAD (staged, unstaged and untracked), or base..head / base..working tree. */
export async function changedFiles(repo: string, req: DiffRequest): Promise<ChangedFile[]> {
  const common = [
    '-c',
    'core.quotepath=off',
    'diff',
    '--unified=0',
    '--no-color',
    '--no-ext-diff',
    '--no-renames',
  ];
  if (req.base) {
    const revs = req.head ? [req.base, req.head] : [req.base];
    return parseDiff(await git(repo, [...common, ...revs, '--'], req.timeoutMs, req.signal));
  }
  let diff: string;
  try {
    diff = await git(repo, [...common, 'HEAD', '--'], req.timeoutMs, req.signal);
  } catch (err) {
    // A repository without commits yet: everything tracked is new.
    if (!(err instanceof GitError) || err.reason !== 'bad_ref') throw err;
    diff = await git(repo, [...common, '--cached', EMPTY_TREE, '--'], req.timeoutMs, req.signal);
  }
  const files = parseDiff(diff);
  const untracked = await git(
    repo,
    ['-c', 'core.quotepath=off', 'ls-files', '--others', '--exclude-standard', '-z'],
    req.timeoutMs,
    req.signal,
  );
  for (const path of untracked.split('\0')) {
    if (path) files.push({ path, status: 'added', ranges: [[1, Number.MAX_SAFE_INTEGER]], lines_changed: 0 });
  }
  return files;
}

const SYMBOL_KINDS = new Set([
  'class',
  'interface',
  'type',
  'enum',
  'function',
  'method',
  'variable',
  'constant',
  'heading',
  'module',
]);

/**
 * The innermost symbols whose lines overlap the changed ranges; the file node itself when a change
 * touches no symbol (imports, top-level statements) or the whole file is new or gone.
 */
export function symbolsForChange(r: GraphReader, file: ChangedFile): { node: NodeRow; fileLevel: boolean }[] {
  const nodes = r.s.inFile.all(file.path) as NodeRow[];
  const fileNode = nodes.find((n) => n.kind === 'file' || n.kind === 'doc_file');
  if (file.status !== 'modified') return fileNode ? [{ node: fileNode, fileLevel: true }] : [];
  const out = new Map<number, { node: NodeRow; fileLevel: boolean }>();
  let fileLevel = false;
  for (const [a, b] of file.ranges) {
    const hits = nodes.filter(
      (n) =>
        SYMBOL_KINDS.has(n.kind) &&
        n.start_line !== null &&
        n.start_line <= b &&
        (n.end_line ?? n.start_line) >= a,
    );
    const innermost = hits.filter(
      (n) =>
        !hits.some(
          (m) =>
            m.id !== n.id &&
            m.start_line! >= n.start_line! &&
            (m.end_line ?? m.start_line!) <= (n.end_line ?? n.start_line!) &&
            (m.start_line !== n.start_line || m.end_line !== n.end_line),
        ),
    );
    if (innermost.length === 0) fileLevel = true;
    for (const n of innermost) out.set(n.id, { node: n, fileLevel: false });
  }
  if (fileLevel && fileNode) out.set(fileNode.id, { node: fileNode, fileLevel: true });
  return [...out.values()];
}

export interface TaskRef {
  id: string;
  title: string;
  status: string;
  matched: string[];
}

const taskStatements = new WeakMap<
  Db,
  { exists: () => boolean; all?: () => { id: number; title: string; status: string; refs: string }[] }
>();

/** Board tasks whose references name a changed file, a folder above one, or a changed symbol. The tasks module may be absent. */
export function tasksReferencing(
  db: Db,
  paths: readonly string[],
  uids: readonly string[],
): { available: boolean; tasks: TaskRef[] } {
  let s = taskStatements.get(db);
  if (!s) {
    const probe = db
      .prepare(
        "SELECT count(*) FROM pragma_table_info('tasks') WHERE name IN ('id', 'title', 'status', 'refs')",
      )
      .pluck();
    s = { exists: () => probe.get() === 4 };
    taskStatements.set(db, s);
  }
  if (!s.exists()) return { available: false, tasks: [] };
  if (!s.all) {
    const stmt = db.prepare("SELECT id, title, status, refs FROM tasks WHERE refs != '[]'");
    s.all = () => stmt.all() as { id: number; title: string; status: string; refs: string }[];
  }
  const pathSet = new Set(paths);
  const uidSet = new Set(uids);
  const out: TaskRef[] = [];
  for (const t of s.all()) {
    let refs: unknown;
    try {
      refs = JSON.parse(t.refs);
    } catch {
      continue;
    }
    if (!Array.isArray(refs)) continue;
    const matched: string[] = [];
    for (const raw of refs) {
      if (typeof raw !== 'string') continue;
      if (uidSet.has(raw)) {
        matched.push(raw);
        continue;
      }
      const ref = raw
        .replace(/^(code:file:|doc:file:|folder:)/, '')
        .replace(/^\.\//, '')
        .replace(/(#L?\d+.*|:\d+(:\d+)?)$/, '')
        .replace(/\/+$/, '');
      if (!ref) continue;
      if (pathSet.has(ref) || paths.some((p) => p.startsWith(`${ref}/`))) matched.push(raw);
    }
    if (matched.length > 0) out.push({ id: `TASK-${t.id}`, title: t.title, status: t.status, matched });
  }
  return { available: true, tasks: out };
}
