// Projects nobody has used for a while keep their watchers but release their caches. A hub serving ten
// repositories is mostly serving repositories nobody is working in right now; each of them would
// otherwise hold its graph indexer's thread (its model of the repository), its writer threads and the
// statements and answers cached beside its database. After COS_PROJECT_IDLE_MINUTES without a tool
// call (the hub's own page polling does not count), a project lets go of all of that; its watchers keep
// running, so its freshness stays true and a file saved meanwhile is still indexed (the indexer thread
// starts for that pass, and the next sweep lets it go again). Its next call rebuilds what it needs,
// transparently. The default project is treated like any other.
import type { Logger } from 'pino';
import type { Project } from './hubs.ts';

/** How often projects are checked: a quarter of the idle limit, within these bounds. */
const MIN_SWEEP_MS = 250;
const MAX_SWEEP_MS = 60_000;

export interface IdleState {
  /** When a tool of the project was last called (ms since the epoch). */
  lastUsedAt: number;
  /** Unused for at least the idle limit. */
  idle: boolean;
  /** When it let go of its caches for being idle, unless it has been used since. */
  releasedAt: number | null;
  /** The threads it let go of since then (`graph`, `board`, `call writer`); its caches always go. */
  released: string[];
}

export class IdleSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** When each project (by hub) first released since its last use, and what it let go of since. */
  private readonly releases = new WeakMap<Project['hub'], { at: number; what: Set<string> }>();

  constructor(
    private readonly projects: () => Project[],
    /** 0: never release. */
    readonly idleMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.idleMs <= 0 || this.timer) return;
    const every = Math.min(MAX_SWEEP_MS, Math.max(MIN_SWEEP_MS, Math.floor(this.idleMs / 4)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** What the home page and cos_health say of a project. */
  state(project: Project): IdleState {
    const lastUsedAt = project.hub.lastUsedAt();
    const release = this.releases.get(project.hub);
    const current = release !== undefined && release.at >= lastUsedAt;
    return {
      lastUsedAt,
      idle: this.idleMs > 0 && this.now() - lastUsedAt >= this.idleMs,
      releasedAt: current ? release.at : null,
      released: current ? [...release.what] : [],
    };
  }

  /** Releases every project unused for the idle limit; one sweep at a time. */
  sweep(): Promise<void> {
    this.running ??= this.sweepOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sweepOnce(): Promise<void> {
    if (this.idleMs <= 0) return;
    for (const project of this.projects()) {
      const lastUsedAt = project.hub.lastUsedAt();
      const idleFor = this.now() - lastUsedAt;
      if (idleFor < this.idleMs) continue;
      let what: string[];
      try {
        what = await project.hub.release();
      } catch (err) {
        this.log.warn({ err, project: project.slug }, `project ${project.slug} could not release its caches`);
        continue;
      }
      // Used while it released: it is not idle any more, and what it needs comes back on its own.
      if (project.hub.lastUsedAt() !== lastUsedAt) continue;
      const first = this.state(project).releasedAt === null;
      if (first) this.releases.set(project.hub, { at: this.now(), what: new Set(what) });
      else for (const name of what) this.releases.get(project.hub)?.what.add(name);
      // Once per idle stretch at info; a watcher's pass since then restarted the indexer: debug.
      if (first || what.length > 0)
        this.log[first ? 'info' : 'debug'](
          { project: project.slug, released: what, idle_minutes: Math.round(idleFor / 60_000) },
          `project ${project.slug} unused for ${Math.round(idleFor / 1000)} s: released ${what.length > 0 ? what.join(', ') : 'nothing held'} and its caches; its watchers keep running`,
        );
    }
  }
}
