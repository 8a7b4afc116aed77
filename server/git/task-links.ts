// Which commits belong to a task: those whose message names it (anywhere, or in a trailer such as
// `Task: TASK-12` / `Refs TASK-12`), those on a branch named after it (`task/TASK-12-fix`) and not on the
// base, and those a linked merge brought in. Ids are only found here; whether `TASK-012`, `task-12` or
// `12` names a given task is the board's call (the `resolve` callback), so commits match tasks exactly
// the way the board resolves ids.
import type { Commit } from './log.ts';
import type { Branch, GitCall } from './service.ts';

export type LinkKind = 'trailer' | 'message' | 'branch' | 'merge';

export interface LinkedCommit extends Commit {
  link: LinkKind;
}

export interface TaskCommits {
  commits: LinkedCommit[];
  /** Branches named after the task. */
  branches: Branch[];
  /** What branch commits were measured against (null: no main/master found, branch commits not listed). */
  base: string | null;
  /** Commits read from the history (newest first) to find mentions; older ones were not searched. */
  scanned: number;
  /** The history had more commits than were scanned. */
  capped: boolean;
}

/** A token → the board's key of the task it names, or null. */
export type ResolveTaskId = (token: string) => string | null;

interface GitReads {
  log(
    revs: readonly string[],
    call: GitCall & { maxCount: number },
  ): Promise<{ commits: Commit[]; truncated: boolean }>;
  branches(call?: GitCall): Promise<Branch[]>;
  fingerprint(call?: GitCall): Promise<string>;
  defaultBase(call?: GitCall): Promise<string | null>;
}

const MENTION = /\bTASK-[0-9]{1,9}\b/gi;
const TRAILER = /^(task|tasks|refs?|closes|fixes|resolves|implements|part-of)\b[ \t]*[:#]?[ \t]*(.+)$/i;
const BRANCH_ID = /(?:^|\/)(TASK-[0-9]{1,9})(?=$|[-_./])/gi;

/** Every task id a message names, each with whether a trailer line named it. */
export function messageTokens(message: string): Map<string, LinkKind> {
  const out = new Map<string, LinkKind>();
  for (const line of message.split('\n')) {
    const t = TRAILER.exec(line.trim());
    if (t) {
      const bare = /^tasks?$/i.test(t[1] ?? '');
      for (const v of (t[2] ?? '').split(/[\s,;]+/)) {
        const value = v.replace(/^#/, '').replace(/[.)]$/, '');
        if (/^TASK-[0-9]{1,9}$/i.test(value) || (bare && /^[0-9]{1,9}$/.test(value)))
          out.set(value.toUpperCase(), 'trailer');
      }
    }
    for (const m of line.matchAll(MENTION)) {
      const token = m[0].toUpperCase();
      if (!out.has(token)) out.set(token, 'message');
    }
  }
  return out;
}

export function branchTokens(name: string): string[] {
  return [...name.matchAll(BRANCH_ID)].map((m) => (m[1] ?? '').toUpperCase());
}

const RANK: Record<LinkKind, number> = { trailer: 0, message: 1, branch: 2, merge: 3 };

interface HistoryIndex {
  byToken: Map<string, { commit: Commit; link: LinkKind }[]>;
  scanned: number;
  capped: boolean;
}

export interface TaskLinkOptions {
  /** Commits of history searched for mentions (newest first). */
  scanLimit?: number;
}

export function createTaskLinks(git: GitReads, options: TaskLinkOptions = {}) {
  const scanLimit = options.scanLimit ?? 10_000;
  let cache: { key: string; index: Promise<HistoryIndex> } | null = null;

  async function index(call: GitCall): Promise<HistoryIndex> {
    const key = await git.fingerprint(call);
    if (cache?.key === key) return cache.index;
    const built = (async () => {
      const { commits, truncated } = await git.log(['--all'], { ...call, maxCount: scanLimit });
      const byToken = new Map<string, { commit: Commit; link: LinkKind }[]>();
      for (const commit of commits) {
        for (const [token, link] of messageTokens(commit.message)) {
          const list = byToken.get(token) ?? [];
          if (list.length === 0) byToken.set(token, list);
          list.push({ commit, link });
        }
      }
      return { byToken, scanned: commits.length, capped: truncated };
    })();
    cache = { key, index: built };
    // A failed build must not be served to the next caller.
    built.catch(() => {
      if (cache?.index === built) cache = null;
    });
    return built;
  }

  /** The commits linked to the task whose board key is `key`, newest first. */
  async function commitsFor(
    key: string,
    resolve: ResolveTaskId,
    opts: GitCall & { base?: string | null | undefined } = {},
  ): Promise<TaskCommits> {
    const idx = await index(opts);
    const found = new Map<string, LinkedCommit>();
    const add = (commit: Commit, link: LinkKind) => {
      const had = found.get(commit.sha);
      if (!had || RANK[link] < RANK[had.link]) found.set(commit.sha, { ...commit, link });
    };
    for (const [token, hits] of idx.byToken)
      if (resolve(token) === key) for (const h of hits) add(h.commit, h.link);

    const names = (message: string) => [...messageTokens(message).keys()].map(resolve);
    // A merge that names the task brought in the branch's commits; those naming only other tasks are theirs.
    const merges = [...found.values()].filter((c) => c.parents.length > 1).slice(0, 20);
    for (const m of merges) {
      const brought = await git.log([`${m.parents[0]}..${m.sha}`], { ...opts, maxCount: 500 });
      for (const c of brought.commits) {
        if (c.sha === m.sha) continue;
        const others = names(c.message).filter((k) => k !== null);
        if (others.length === 0 || others.includes(key)) add(c, 'merge');
      }
    }

    const branches = (await git.branches(opts)).filter((b) =>
      branchTokens(b.name).some((t) => resolve(t) === key),
    );
    const base = opts.base === undefined ? await git.defaultBase(opts) : opts.base;
    if (base !== null)
      for (const b of branches.slice(0, 10)) {
        if (b.name === base) continue;
        const { commits } = await git.log([`${base}..${b.sha}`], { ...opts, maxCount: 500 });
        for (const c of commits) add(c, 'branch');
      }
    const commits = [...found.values()].sort(
      (a, b) => Date.parse(b.time) - Date.parse(a.time) || a.sha.localeCompare(b.sha),
    );
    return { commits, branches, base, scanned: idx.scanned, capped: idx.capped };
  }

  return { commitsFor };
}
