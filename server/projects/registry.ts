// The registry of projects one hub serves: `$COS_HOME/projects.json`, one entry per repository (its real
// path, its slug in URLs, its state directory). `cos project add|list|remove` edit it; a running hub
// watches it and opens or closes projects without a restart. A project's data never lives here: each
// keeps its own state directory (`<repo>/.cos` by default), so every CLI command on a repository works
// with or without the hub.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

export const REGISTRY_FILE_NAME = 'projects.json';
const FILE_VERSION = 1;
/** A slug is a URL path segment: lower-case letters, digits and inner hyphens, at most 40 characters. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const LOCK_WAIT_MS = 3000;
/** A lock older than this was left by a process that died mid-write. */
const LOCK_STALE_MS = 10_000;

export interface ProjectEntry {
  slug: string;
  /** Absolute real path of the repository. */
  repo: string;
  /** Absolute path of the project's state directory (hub.db, .mcp.log, module switches). */
  stateDir: string;
  addedAt: string;
}

export interface RegistryRead {
  entries: ProjectEntry[];
  /** Entries that were skipped, each with why (the file itself stays as it is). */
  problems: string[];
}

/** Why a registry change was refused; `kind` maps onto the CLI's exit code and the envelope's category. */
export class RegistryError extends Error {
  constructor(
    readonly kind: 'validation' | 'conflict' | 'not_found' | 'corrupt',
    message: string,
  ) {
    super(message);
  }
}

export function isSlug(text: string): boolean {
  return SLUG.test(text);
}

/**
 * The platform's configuration directory for cos, unless COS_HOME names one: `$XDG_CONFIG_HOME/cos` or
 * `~/.config/cos` on Linux and the BSDs, `~/Library/Application Support/cos` on macOS, `%APPDATA%\cos`
 * on Windows.
 */
export function defaultHome(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'cos');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'cos');
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.config'), 'cos');
}

/** A slug from a directory name (`My Repo.v2` → `my-repo-v2`) that none of `taken` has. */
export function slugFor(repo: string, taken: ReadonlySet<string>): string {
  const base =
    basename(repo)
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 34)
      .replace(/-+$/, '') || 'project';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const next = `${base}-${n}`;
    if (!taken.has(next)) return next;
  }
}

function entryOf(raw: unknown, index: number, problems: string[]): ProjectEntry | undefined {
  const at = `projects[${index}]`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`${at} is not an object`);
    return undefined;
  }
  const { slug, repo, state_dir: stateDir, added_at: addedAt } = raw as Record<string, unknown>;
  if (typeof slug !== 'string' || !isSlug(slug)) {
    problems.push(`${at}.slug must be lower-case letters, digits and hyphens (got ${JSON.stringify(slug)})`);
    return undefined;
  }
  if (typeof repo !== 'string' || !isAbsolute(repo)) {
    problems.push(`${at} (${slug}): repo must be an absolute path`);
    return undefined;
  }
  if (stateDir !== undefined && (typeof stateDir !== 'string' || !isAbsolute(stateDir))) {
    problems.push(`${at} (${slug}): state_dir must be an absolute path`);
    return undefined;
  }
  return {
    slug,
    repo,
    stateDir: typeof stateDir === 'string' ? stateDir : join(repo, '.cos'),
    addedAt: typeof addedAt === 'string' ? addedAt : '',
  };
}

/** The entries of a registry file's text; throws RegistryError('corrupt') when the file as a whole is not one. */
export function parseRegistry(text: string, file: string): RegistryRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new RegistryError(
      'corrupt',
      `${file} is not valid JSON (${(err as Error).message}); fix it by hand or delete it to start an empty registry`,
    );
  }
  const list = (parsed as { projects?: unknown } | null)?.projects;
  if (!Array.isArray(list)) {
    throw new RegistryError(
      'corrupt',
      `${file} has no "projects" list; fix it by hand or delete it to start an empty registry`,
    );
  }
  const problems: string[] = [];
  const entries: ProjectEntry[] = [];
  const slugs = new Set<string>();
  const repos = new Set<string>();
  list.forEach((raw, i) => {
    const entry = entryOf(raw, i, problems);
    if (!entry) return;
    if (slugs.has(entry.slug))
      problems.push(`projects[${i}]: the slug ${entry.slug} is used twice; kept the first`);
    else if (repos.has(entry.repo))
      problems.push(`projects[${i}] (${entry.slug}): ${entry.repo} is registered twice; kept the first`);
    else {
      slugs.add(entry.slug);
      repos.add(entry.repo);
      entries.push(entry);
    }
  });
  return { entries, problems };
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export class ProjectRegistry {
  readonly file: string;

  constructor(readonly home: string) {
    this.file = join(home, REGISTRY_FILE_NAME);
  }

  /** The registered projects; a missing file is an empty registry. Throws RegistryError('corrupt'). */
  read(): RegistryRead {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], problems: [] };
      throw new RegistryError('corrupt', `cannot read ${this.file}: ${(err as Error).message}`);
    }
    return parseRegistry(text, this.file);
  }

  /** The entry whose repository is `repo` (compared by real path), if any. */
  findByRepo(repo: string): ProjectEntry | undefined {
    const real = realOrSelf(repo);
    return this.read().entries.find((e) => realOrSelf(e.repo) === real);
  }

  /**
   * Registers a repository. The path must be an existing directory; it is stored as its real path, so a
   * symlinked checkout and its target are one project. Refuses a repository or state directory that is
   * registered already and a slug that is taken.
   */
  add(options: { repo: string; slug?: string | undefined; stateDir?: string | undefined }): ProjectEntry {
    let repo: string;
    try {
      repo = realpathSync(options.repo);
    } catch {
      throw new RegistryError('not_found', `${options.repo} does not exist; pass the path of a repository`);
    }
    if (!statSync(repo).isDirectory()) {
      throw new RegistryError(
        'validation',
        `${repo} is a file, not a directory; pass the repository's directory`,
      );
    }
    if (options.slug !== undefined && !isSlug(options.slug)) {
      throw new RegistryError(
        'validation',
        `"${options.slug}" is not a valid slug: use lower-case letters, digits and hyphens (at most 40, no hyphen at either end)`,
      );
    }
    const stateDir = resolve(options.stateDir ?? join(repo, '.cos'));
    return this.update((entries) => {
      const same = entries.find((e) => realOrSelf(e.repo) === repo);
      if (same) throw new RegistryError('conflict', `${repo} is registered already as "${same.slug}"`);
      const shared = entries.find((e) => resolve(e.stateDir) === stateDir);
      if (shared) {
        throw new RegistryError(
          'conflict',
          `the state directory ${stateDir} belongs to "${shared.slug}" already; give this project its own (--state-dir)`,
        );
      }
      const taken = new Set(entries.map((e) => e.slug));
      if (options.slug !== undefined && taken.has(options.slug)) {
        throw new RegistryError('conflict', `the slug "${options.slug}" is taken; pick another with --slug`);
      }
      const entry: ProjectEntry = {
        slug: options.slug ?? slugFor(repo, taken),
        repo,
        stateDir,
        addedAt: new Date().toISOString(),
      };
      return { entries: [...entries, entry], result: entry };
    });
  }

  /** Unregisters a project. Its state directory (database, logs) stays where it is. */
  remove(slug: string): ProjectEntry {
    return this.update((entries) => {
      const entry = entries.find((e) => e.slug === slug);
      if (!entry) {
        const known = entries.map((e) => e.slug).join(', ') || 'none';
        throw new RegistryError('not_found', `no project "${slug}" is registered (registered: ${known})`);
      }
      return { entries: entries.filter((e) => e !== entry), result: entry };
    });
  }

  /**
   * Read, change and write the file under a lock, so two `cos project add` at once both land. Invalid
   * entries are kept as they are written (a person may be mid-edit); a corrupt file is never replaced.
   */
  private update<T>(change: (entries: ProjectEntry[]) => { entries: ProjectEntry[]; result: T }): T {
    mkdirSync(this.home, { recursive: true });
    const release = this.lock();
    try {
      let raw: unknown[] = [];
      let text: string | undefined;
      try {
        text = readFileSync(this.file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      const entries = text === undefined ? [] : parseRegistry(text, this.file).entries;
      if (text !== undefined) raw = (JSON.parse(text) as { projects: unknown[] }).projects;
      const { entries: next, result } = change(entries);
      const kept = new Set(next.map((e) => e.slug));
      const removed = new Set(entries.filter((e) => !kept.has(e.slug)).map((e) => e.slug));
      const had = new Set(entries.map((e) => e.slug));
      // Rows this change did not touch are written back exactly as they were, valid or not.
      const out = raw.filter((r) => !removed.has((r as { slug?: string } | null)?.slug ?? ''));
      for (const e of next) {
        if (!had.has(e.slug))
          out.push({ slug: e.slug, repo: e.repo, state_dir: e.stateDir, added_at: e.addedAt });
      }
      writeAtomic(this.file, `${JSON.stringify({ version: FILE_VERSION, projects: out }, null, 2)}\n`);
      return result;
    } finally {
      release();
    }
  }

  private lock(): () => void {
    const path = `${this.file}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        closeSync(openSync(path, 'wx'));
        return () => rmSync(path, { force: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      try {
        if (Date.now() - statSync(path).mtimeMs > LOCK_STALE_MS) rmSync(path, { force: true });
      } catch {
        // Released meanwhile: try again.
      }
      if (Date.now() > deadline) {
        throw new RegistryError(
          'conflict',
          `${path} is held by another cos command; try again (delete it if no cos command is running)`,
        );
      }
      sleep(25);
    }
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A reader sees the old file or the new one, never half of one. */
function writeAtomic(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
