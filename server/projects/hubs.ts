// The projects one hub process serves: the default one (the repository `cos serve` started in, served at
// `/mcp` and `/api/…` as always) and every repository in the registry, each a Hub of its own (its own
// configuration, database, logger, services and watchers) served under `/p/<slug>/`. Nothing is shared
// between two projects but the process: a tool call runs in its project's hub, against its project's
// repository and database, so a path or uid of one project can never resolve in another.
//
// The registry file is polled; a project added or removed while the hub runs is opened or closed without
// a restart. A project nobody uses for COS_PROJECT_IDLE_MINUTES releases its caches (idle.ts).
import { unwatchFile, watchFile } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Hub } from '../hub.ts';
import { IdleSweep } from './idle.ts';
import { type ProjectEntry, type ProjectRegistry, RegistryError, slugFor } from './registry.ts';

export interface Project {
  slug: string;
  /** Absolute real path of the repository. */
  repo: string;
  stateDir: string;
  hub: Hub;
  /** The project `cos serve` was started in: also served at `/mcp` and `/api/…`. */
  isDefault: boolean;
  /** In the registry (the default project may not be). */
  registered: boolean;
}

export interface ProjectHubsOptions {
  /** Absent: the hub serves only its default project (tests, and a hub with no registry). */
  registry?: ProjectRegistry | undefined;
  /** Opens a project's hub from its configuration (the caller's createHub, with its shared parts). */
  open?: ((config: Config) => Hub) | undefined;
  /** How often the registry file is checked for changes (ms). */
  pollMs?: number;
  /** The clock of the idle sweep. */
  now?: () => number;
}

const PROJECT = Symbol('cos.project');
type Tagged = IncomingMessage & { [PROJECT]?: Project };

/** The project a request was routed to under `/p/<slug>/`, if it came that way. */
export function projectOfRequest(raw: IncomingMessage): Project | undefined {
  return (raw as Tagged)[PROJECT];
}

/** A project's configuration: the hub's own (port, host, token, limits) with the project's paths. */
export function projectConfig(base: Config, entry: Pick<ProjectEntry, 'repo' | 'stateDir'>): Config {
  return {
    ...base,
    repo: entry.repo,
    stateDir: entry.stateDir,
    tasksDir: join(entry.repo, 'docs', 'tasks'),
    agentDir: join(entry.stateDir, 'agents'),
    // COS_TEAM_PROJECT names the served repository's team: another repository's team is its own origin.
    teamProject: undefined,
  };
}

export class ProjectHubs {
  readonly default: Project;
  private readonly bySlug = new Map<string, Project>();
  private readonly closedListeners = new Set<(project: Project) => void | Promise<void>>();
  private readonly openedListeners = new Set<(project: Project) => void>();
  private readonly log: Logger;
  /** Lets projects nobody uses release their caches (config.projectIdleMs). */
  readonly idle: IdleSweep;
  /** One registry sync at a time: a change seen while one runs waits for it. */
  private syncing: Promise<void> = Promise.resolve();
  private watching = false;
  private closed = false;
  /** Where the hub answers, once it listens (`http://127.0.0.1:9188`): the base of the URLs it lists. */
  baseUrl: string;

  constructor(
    defaultHub: Hub,
    private readonly options: ProjectHubsOptions = {},
  ) {
    this.log = defaultHub.logger.child({ scope: 'projects' });
    const config = defaultHub.config;
    this.idle = new IdleSweep(() => this.list(), config.projectIdleMs, this.log, options.now);
    this.baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
    let registered: ProjectEntry | undefined;
    try {
      registered = options.registry?.findByRepo(config.repo);
    } catch (err) {
      this.log.warn({ err }, `the registry of projects cannot be read: ${(err as Error).message}`);
    }
    const taken = new Set<string>();
    try {
      for (const e of options.registry?.read().entries ?? []) taken.add(e.slug);
    } catch {
      // Warned about above.
    }
    this.default = {
      slug: registered?.slug ?? slugFor(config.repo, taken),
      repo: config.repo,
      stateDir: config.stateDir,
      hub: defaultHub,
      isDefault: true,
      registered: registered !== undefined,
    };
    this.bySlug.set(this.default.slug, this.default);
    defaultHub.services.projects = this;
  }

  get(slug: string): Project | undefined {
    return this.bySlug.get(slug);
  }

  /** The default project first, then the others in registry order. */
  list(): Project[] {
    return [...this.bySlug.values()];
  }

  /** Called after a project's hub opens (a registry change while the hub runs). */
  onOpened(listener: (project: Project) => void): () => void {
    this.openedListeners.add(listener);
    return () => this.openedListeners.delete(listener);
  }

  /** Called before a project's hub closes, so the faces can end what they hold for it (MCP sessions). */
  onClosing(listener: (project: Project) => void | Promise<void>): () => void {
    this.closedListeners.add(listener);
    return () => this.closedListeners.delete(listener);
  }

  /**
   * Fastify's rewriteUrl: `/p/<slug>/rest` becomes `/rest` with the request tagged with its project, so
   * every route serves every project. An unknown slug is left as it is and answers 404.
   */
  rewrite(raw: IncomingMessage): string {
    const url = raw.url ?? '/';
    // '/p/' without allocating for every other request.
    if (url.charCodeAt(1) !== 112 || url.charCodeAt(2) !== 47 || url.charCodeAt(0) !== 47) return url;
    const end = url.slice(3).search(/[/?#]/);
    const slug = end === -1 ? url.slice(3) : url.slice(3, 3 + end);
    const project = this.bySlug.get(slug);
    if (!project) return url;
    (raw as Tagged)[PROJECT] = project;
    const rest = end === -1 ? '' : url.slice(3 + end);
    return rest.startsWith('/') ? rest : `/${rest}`;
  }

  /** Opens every registered project and follows the registry from then on; starts the idle sweep. */
  async start(): Promise<void> {
    await this.sync();
    if (!this.closed) this.idle.start();
    const { registry } = this.options;
    if (!registry || this.watching || this.closed) return;
    this.watching = true;
    watchFile(registry.file, { interval: this.options.pollMs ?? 1000, persistent: false }, () => {
      void this.sync();
    });
  }

  /** Brings the open projects in line with the registry: opens the new ones, closes the removed ones. */
  sync(): Promise<void> {
    const next = this.syncing.then(() => this.syncOnce());
    this.syncing = next.catch(() => {});
    return next;
  }

  private async syncOnce(): Promise<void> {
    const { registry, open } = this.options;
    if (!registry || !open || this.closed) return;
    let entries: ProjectEntry[];
    try {
      const read = registry.read();
      for (const p of read.problems) this.log.warn(`${registry.file}: ${p}`);
      entries = read.entries;
    } catch (err) {
      // A file mid-edit by hand: keep serving what is open until it reads again.
      if (err instanceof RegistryError) this.log.warn(err.message);
      else this.log.error({ err }, 'the registry of projects cannot be read');
      return;
    }
    const wanted = new Map(entries.map((e) => [e.slug, e]));
    for (const project of this.list()) {
      if (project.isDefault) {
        project.registered = [...wanted.values()].some((e) => e.repo === project.repo);
        continue;
      }
      const entry = wanted.get(project.slug);
      if (!entry || entry.repo !== project.repo || entry.stateDir !== project.stateDir) {
        await this.closeProject(project);
      }
    }
    for (const entry of entries) {
      if (this.bySlug.has(entry.slug)) continue;
      if (entry.repo === this.default.repo) continue; // served as the default already, under its own slug
      this.openProject(entry, open);
    }
  }

  private openProject(entry: ProjectEntry, open: (config: Config) => Hub): void {
    let hub: Hub;
    try {
      hub = open(projectConfig(this.default.hub.config, entry));
    } catch (err) {
      this.log.error({ err, project: entry.slug }, `project ${entry.slug} (${entry.repo}) cannot be opened`);
      return;
    }
    const project: Project = {
      slug: entry.slug,
      repo: entry.repo,
      stateDir: entry.stateDir,
      hub,
      isDefault: false,
      registered: true,
    };
    hub.services.projects = this;
    this.bySlug.set(entry.slug, project);
    this.log.info({ project: entry.slug }, `serving ${entry.repo} at /p/${entry.slug}/`);
    for (const listener of this.openedListeners) listener(project);
    void hub.start().catch((err: unknown) => {
      this.log.error({ err, project: entry.slug }, 'a background service failed to start');
    });
  }

  private async closeProject(project: Project): Promise<void> {
    this.bySlug.delete(project.slug);
    for (const listener of this.closedListeners) {
      try {
        await listener(project);
      } catch (err) {
        this.log.warn({ err, project: project.slug }, 'a face failed to let go of a closing project');
      }
    }
    await project.hub.close();
    this.log.info({ project: project.slug }, `stopped serving ${project.repo}`);
  }

  /** Closes every project but the default (whose hub its owner closes). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.options.registry) unwatchFile(this.options.registry.file);
    await this.idle.stop();
    await this.syncing;
    for (const project of this.list()) if (!project.isDefault) await this.closeProject(project);
  }
}

declare module '../hub-services.ts' {
  interface HubServices {
    /** Every project the hub process serves (GET /api/projects); set by the app on each project's hub. */
    projects?: ProjectHubs;
  }
}
