// File reservations (leases): before it edits, an agent says which paths it will change, why and for how
// long (cos_files_reserve); another agent that asks for an overlapping exclusive hold is told who has it,
// and an edit (or a recognisable shell write) of a held path is warned about or refused in the hook path,
// as an edit conflict is. A reservation ends at its expiry, when its holder's session ends (SessionEnd,
// or silence past the claim grace, judged as claims are: server/agents/reclaim.ts), when its task is
// complete, or when it is released (by its holder, or by a person on the hub's page, which goes on the
// holder's timeline).
//
// Grants are decided in the store's one atomic step (reservation-store.ts: SQLite's write lock alone;
// reservation-pg-store.ts: the team's advisory lock in PostgreSQL), never from a read made before it.
// The hook path reads only memory: the live reservations, kept from the store at start and after every
// change this hub makes, and in a team from the other hubs' feed entries, so a PreToolUse answer never
// waits on a database. Every change is a `reservation-updated` event on the bus (the SPA, other
// pages); in a team every hub announces the others' changes too.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { type ConflictHit, describeHits } from '../agents/conflicts.ts';
import { agentLabel } from '../agents/labels.ts';
import { claimantFacts, claimantState } from '../agents/reclaim.ts';
import { isFinished, parseTaskId } from '../board/model.ts';
import { taskKeys } from '../board/task-keys.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/open.ts';
import { invalid, notFound, ToolError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { NormalizedEvent } from '../hooks/normalize.ts';
import type { StoredFile } from '../hooks/store.ts';
import type { HubServices } from '../hub-services.ts';
import type { TeamEntry } from '../team/feed.ts';
import { compileSpec, normalizeSpec, type PathSpec, specHolds, specsOverlap } from './path-specs.ts';
import {
  createPgReservationStore,
  RESERVATION_FEED_KIND,
  type ReservationFeedBody,
} from './reservation-pg-store.ts';
import {
  type ChangeKind,
  createSqliteReservationStore,
  type Decision,
  type Reservation,
  type ReservationChange,
  type ReservationStore,
} from './reservation-store.ts';
import { shellWriteTargets } from './shell-writes.ts';

export type { Reservation, ReservationChange } from './reservation-store.ts';

declare module '../hub-services.ts' {
  interface HubServices {
    reservations: ReservationsService;
  }
}

export const DEFAULT_TTL_SECONDS = 3600;
export const MIN_TTL_SECONDS = 5;
export const MAX_TTL_SECONDS = 86_400;
export const MAX_PATHS = 100;
export const MAX_REASON_CHARS = 500;
const SWEEP_MS = 5_000;
/** In a team, the view is read again from PostgreSQL now and then: a feed entry missed is healed. */
const RELOAD_MS = 60_000;

/** A reservation as tools and the page show it: with its holder named for people. */
export interface ReservationView extends Reservation {
  /** `claude-code c1a0de00`, with ` on <machine>` when it is another machine's. */
  holder_label: string;
}

export interface ConflictView {
  /** The path or glob asked for. */
  path: string;
  /** The path or glob of the reservation it overlaps. */
  held: string;
  reservation_id: string;
  holder: string;
  holder_label: string;
  machine: string;
  reason: string;
  task_id: string | null;
  expires_at: number;
}

export type ReserveResult =
  | { granted: true; extended: boolean; reservation: ReservationView; message: string }
  | { granted: false; conflicts: ConflictView[]; message: string };

export interface ReserveInput {
  agent_session: string;
  paths: readonly string[];
  reason: string;
  task_id?: string | null | undefined;
  ttl_seconds?: number | undefined;
  exclusive?: boolean | undefined;
  /** The calling client's name (an MCP client's), used for the holder's label when no hook names it. */
  client?: string | undefined;
}

export interface ReleaseInput {
  agent_session?: string | undefined;
  id?: string | undefined;
  paths?: readonly string[] | undefined;
}

export interface ReleasedView {
  id: string;
  holder: string;
  holder_label: string;
  /** The paths released (all of them when ended). */
  paths: string[];
  /** true: the reservation is gone; false: it goes on holding the rest of its paths. */
  ended: boolean;
}

export interface ReleaseResult {
  released: ReleasedView[];
  /** Paths asked for that no reservation released here held. */
  not_held: string[];
  message: string;
}

export interface ListInput {
  agent?: string | undefined;
  path?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

/** What a PreToolUse edit or shell command runs into: the answer's text, and what it found. */
export interface HookHolds {
  message: string;
  /** A shell command's writes are only ever warned about. */
  warnOnly: boolean;
  /** The edit conflicts still worth saying (one on a path the same agent reserved says less). */
  hits: ConflictHit[];
  reservations: (ConflictView & { target: string })[];
}

export interface ReservationsService {
  /** Normalises paths for a reservation (validation for an empty list or a path outside): before a claim. */
  normalize(paths: readonly string[]): string[];
  reserve(input: ReserveInput): Promise<ReserveResult>;
  /** `person`: the hub's page (REST without agent_session), which may release any reservation. */
  release(input: ReleaseInput, person: boolean): Promise<ReleaseResult>;
  list(input: ListInput): { entries: ReservationView[]; next_cursor: string | null };
  /** The hook path, from memory: a pre edit's or shell command's writes on paths others reserved. */
  check(ev: NormalizedEvent, files: readonly StoredFile[], hits: readonly ConflictHit[]): HookHolds | null;
  /** The reservations tied to a task move to its new holder (a handoff). */
  handOver(taskId: string, from: string, to: string): Promise<ReservationView[]>;
  /** Ends what is over: expired reservations, those of gone holders (this machine's), of finished tasks. */
  sweep(): Promise<number>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface ReservationsDeps {
  config: Config;
  db: Db;
  events: EventBus;
  logger: Logger;
  /** Read at call time: agents (liveness, timelines), board (tasks), team, observability (MCP sessions). */
  services: HubServices;
  now: () => number;
}

interface Held {
  r: Reservation;
  specs: PathSpec[];
}

const newId = () => `R-${randomBytes(5).toString('hex')}`;

/** `12:40 UTC` */
function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

function left(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 1 ? 'less than a minute left' : m < 120 ? `${m} min left` : `${Math.round(m / 60)} h left`;
}

function listOf(paths: readonly string[], max = 3): string {
  return paths.slice(0, max).join(', ') + (paths.length > max ? ` and ${paths.length - max} more` : '');
}

/** A reservation from another hub's feed entry, checked (the feed carries JSON); undefined if malformed. */
function reservationOf(v: unknown): Reservation | undefined {
  const r = v as Partial<Reservation> | null;
  if (!r || typeof r.id !== 'string' || typeof r.holder !== 'string' || typeof r.machine !== 'string')
    return undefined;
  if (!Array.isArray(r.paths) || !r.paths.every((p) => typeof p === 'string')) return undefined;
  if (typeof r.created_at !== 'number' || typeof r.expires_at !== 'number') return undefined;
  return {
    id: r.id,
    holder: r.holder,
    holder_client: typeof r.holder_client === 'string' ? r.holder_client : null,
    machine: r.machine,
    paths: r.paths,
    reason: typeof r.reason === 'string' ? r.reason : '',
    task_id: typeof r.task_id === 'string' ? r.task_id : null,
    exclusive: r.exclusive !== false,
    created_at: r.created_at,
    expires_at: r.expires_at,
  };
}

export function createReservationsService(deps: ReservationsDeps): ReservationsService {
  const { config, db, events, logger, services, now } = deps;
  const s = services as Partial<HubServices>;
  const team = s.team;
  const machine = team?.machine ?? config.machine;
  const store: ReservationStore = team ? createPgReservationStore(team) : createSqliteReservationStore(db);
  const keys = taskKeys(db);
  /** The live reservations as this hub knows them: what the hook path reads. */
  const view = new Map<string, Held>();
  const timers: NodeJS.Timeout[] = [];
  const offs: (() => void)[] = [];
  let closed = false;

  const agents = () => s.agents;
  const label = (r: Pick<Reservation, 'holder' | 'holder_client' | 'machine'>) =>
    agentLabel({ client: r.holder_client, id: r.holder, machine: r.machine }, machine);
  const show = (r: Reservation): ReservationView => ({ ...r, holder_label: label(r) });
  const paths = () => {
    const a = agents();
    if (!a) throw new ToolError('unavailable', 'the hub has no agents service to resolve paths with');
    return a.paths;
  };

  /** The hook agent behind an agent_session: itself, or the hook session an MCP session names. */
  function agentKey(session: string): string {
    if (agents()?.registry.get(session)) return session;
    const linked = s.observability?.sessions
      .find(session)
      .find((m) => m.id === session && m.agent_session !== null)?.agent_session;
    return linked ?? session;
  }
  const sameAgent = (a: string, b: string) => a === b || agentKey(a) === agentKey(b);

  function compiled(r: Reservation): PathSpec[] {
    const held = view.get(r.id);
    if (held && held.r.paths.length === r.paths.length && held.r.paths.every((p, i) => p === r.paths[i]))
      return held.specs;
    return r.paths.map(compileSpec);
  }

  function apply(changes: readonly ReservationChange[]): void {
    for (const c of changes) {
      if (c.ended) view.delete(c.reservation.id);
      else view.set(c.reservation.id, { r: c.reservation, specs: c.reservation.paths.map(compileSpec) });
    }
  }

  /** Streams changes (this hub's, or `from` another machine's) as `reservation-updated`. */
  function announce(changes: readonly ReservationChange[], from: string): void {
    for (const c of changes)
      events.publish('reservation-updated', {
        change: c.change,
        ended: c.ended,
        reservation: show(c.reservation),
        ...(c.released_paths ? { released_paths: c.released_paths } : {}),
        ...(c.reason ? { reason: c.reason } : {}),
        by: c.by,
        machine: from,
      });
  }

  /** Puts this hub's changes on their holders' timelines (another machine's are its hub's to record). */
  function record(changes: readonly ReservationChange[]): void {
    const a = agents();
    if (!a) return;
    for (const c of changes) {
      const r = c.reservation;
      if (c.reason?.startsWith('merged into')) continue;
      const held = listOf(c.released_paths ?? r.paths);
      const why = c.reason ? `: ${c.reason}` : '';
      const summary: Record<ChangeKind, string> = {
        granted: `reserved ${held} until ${clock(r.expires_at)} ("${r.reason}")`,
        extended: `extended its reservation of ${held} until ${clock(r.expires_at)}`,
        released: c.ended ? `reservation of ${held} ended${why}` : `released ${held}${why}`,
        expired: `reservation of ${held} expired`,
        handed_over: `took over the reservation of ${held}${why}`,
      };
      try {
        a.note(agentKey(r.holder), 'reservation', summary[c.change].slice(0, 240), {
          reservation: r.id,
          change: c.change,
          paths: c.released_paths ?? r.paths,
          ended: c.ended,
          by: c.by,
          ...(r.task_id ? { task: r.task_id } : {}),
          ...(c.reason ? { reason: c.reason } : {}),
        });
      } catch (err) {
        logger.warn({ err, scope: 'reservations' }, 'a reservation change could not go on the timeline');
      }
    }
  }

  /** One atomic change through the store, then the view, the stream and the timelines. */
  async function change<T>(decide: (rows: Reservation[]) => Decision<T>): Promise<T> {
    const decision = await store.change(decide);
    if (decision.changes.length > 0) {
      apply(decision.changes);
      announce(decision.changes, machine);
      record(decision.changes);
    }
    return decision.result;
  }

  /** The expired rows among `rows`, as changes (every step sweeps them on its way). */
  const expiredOf = (rows: readonly Reservation[], at: number): ReservationChange[] =>
    rows
      .filter((r) => r.expires_at <= at)
      .map(
        (r) => ({ change: 'expired', reservation: r, ended: true, by: 'hub' }) satisfies ReservationChange,
      );

  function conflictView(path: string, held: string, r: Reservation): ConflictView {
    return {
      path,
      held,
      reservation_id: r.id,
      holder: r.holder,
      holder_label: label(r),
      machine: r.machine,
      reason: r.reason,
      task_id: r.task_id,
      expires_at: r.expires_at,
    };
  }

  /** `… held by claude-code c1a0de00 for "reason" (TASK-7) until 12:40 UTC (25 min left)` */
  function heldBy(c: Pick<ConflictView, 'holder_label' | 'reason' | 'task_id' | 'expires_at'>, at: number) {
    const task = c.task_id ? ` (${c.task_id})` : '';
    return `${c.holder_label} for "${c.reason}"${task} until ${clock(c.expires_at)} (${left(c.expires_at - at)})`;
  }

  /** How to ask the holders: a message to each (its full session id is what cos_message_send takes). */
  function askThem(list: readonly Pick<ConflictView, 'holder' | 'holder_label'>[]): string {
    const holders = [...new Map(list.map((c) => [c.holder, c])).values()];
    return holders
      .slice(0, 3)
      .map((c) => `ask ${c.holder_label} to release it (cos_message_send to "${c.holder}")`)
      .join('; ');
  }

  function normalize(input: readonly string[]): string[] {
    if (input.length === 0)
      throw invalid(
        'paths is empty: name the repository-relative paths or globs you will edit, e.g. ["src/auth/**"]',
      );
    if (input.length > MAX_PATHS) throw invalid(`paths has ${input.length} entries; at most ${MAX_PATHS}`);
    const rp = paths();
    return [...new Set(input.map((p) => normalizeSpec(p, rp)))];
  }

  function taskKey(taskId: string | null | undefined): string | null {
    if (taskId === undefined || taskId === null) return null;
    const key = keys.resolve(taskId);
    if (key === null) throw invalid(`task_id "${taskId}" is not a task id such as TASK-7`);
    return key;
  }

  const sameTask = (a: string | null, b: string) => a !== null && parseTaskId(a) === parseTaskId(b);

  async function reserve(input: ReserveInput): Promise<ReserveResult> {
    const holder = input.agent_session.trim();
    if (holder === '')
      throw invalid('agent_session is required: pass your agent session (SessionStart names it)');
    const reason = input.reason.trim();
    if (reason === '') throw invalid('reason is empty: say in a few words what you will change');
    if (reason.length > MAX_REASON_CHARS)
      throw invalid(`reason is longer than ${MAX_REASON_CHARS} characters`);
    const ttl = input.ttl_seconds ?? DEFAULT_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl < MIN_TTL_SECONDS || ttl > MAX_TTL_SECONDS)
      throw invalid(`ttl_seconds must be a whole number from ${MIN_TTL_SECONDS} to ${MAX_TTL_SECONDS}`);
    const wanted = normalize(input.paths);
    const task_id = taskKey(input.task_id);
    const exclusive = input.exclusive ?? true;
    const key = agentKey(holder);
    const client =
      agents()?.registry.get(key)?.client ??
      s.observability?.sessions.find(holder).find((m) => m.client_name)?.client_name ??
      input.client ??
      null;
    const wantedSpecs = wanted.map(compileSpec);
    return change((rows): Decision<ReserveResult> => {
      const at = now();
      const expired = expiredOf(rows, at);
      const live = rows.filter((r) => r.expires_at > at);
      // Its own holds on any of these paths: extended and merged with them into one.
      const own = live
        .filter((r) => sameAgent(r.holder, holder))
        .filter((r) => compiled(r).some((h) => wantedSpecs.some((w) => specsOverlap(h, w))))
        .sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
      const merged = [...new Set([...own.flatMap((r) => r.paths), ...wanted])];
      const mergedSpecs = merged.map(compileSpec);
      const conflicts: ConflictView[] = [];
      for (const r of live) {
        if (sameAgent(r.holder, holder)) continue;
        // Shared (non-exclusive) holds only meet exclusive ones.
        if (!exclusive && !r.exclusive) continue;
        const specs = compiled(r);
        for (const [i, w] of mergedSpecs.entries())
          for (const [j, h] of specs.entries())
            if (specsOverlap(w, h))
              conflicts.push(conflictView(merged[i] as string, r.paths[j] as string, r));
      }
      if (conflicts.length > 0) {
        const shown = conflicts
          .slice(0, 3)
          .map((c) => `${c.path} overlaps ${c.held}, held by ${heldBy(c, at)}`)
          .join('; ');
        const more = conflicts.length > 3 ? ` (and ${conflicts.length - 3} more)` : '';
        return {
          changes: expired,
          result: {
            granted: false,
            conflicts,
            message: `not granted, nothing was reserved: ${shown}${more}. Work on something else, wait until it expires, or ${askThem(conflicts)}.`,
          },
        };
      }
      const expires_at = Math.max(at + ttl * 1000, ...own.map((r) => r.expires_at));
      const first = own[0];
      const reservation: Reservation = {
        id: first?.id ?? newId(),
        holder,
        holder_client: client ?? first?.holder_client ?? null,
        machine: first?.machine ?? machine,
        paths: merged,
        reason,
        task_id: task_id ?? first?.task_id ?? null,
        exclusive,
        created_at: first?.created_at ?? at,
        expires_at,
      };
      const changes: ReservationChange[] = [
        ...expired,
        { change: first ? 'extended' : 'granted', reservation, ended: false, by: holder },
        ...own.slice(1).map(
          (r): ReservationChange => ({
            change: 'released',
            reservation: r,
            ended: true,
            reason: `merged into ${reservation.id}`,
            by: holder,
          }),
        ),
      ];
      return {
        changes,
        result: {
          granted: true,
          extended: first !== undefined,
          reservation: show(reservation),
          message: `${first ? 'extended' : 'granted'}: ${listOf(merged)} ${exclusive ? 'reserved for you' : 'shared with you'} until ${clock(expires_at)} as ${reservation.id}; release it with cos_files_release when done.`,
        },
      };
    });
  }

  async function release(input: ReleaseInput, person: boolean): Promise<ReleaseResult> {
    const { id } = input;
    const me = input.agent_session?.trim() || undefined;
    if ((id === undefined) === (input.paths === undefined))
      throw invalid('pass either id (one reservation) or paths (those paths of your reservations), not both');
    if (!person && me === undefined)
      throw invalid('agent_session is required: an agent releases only its own reservations');
    const by = person && me === undefined ? 'person' : (me as string);
    const may = (r: Reservation) => (person && me === undefined) || sameAgent(r.holder, me as string);
    const refuse = (r: Reservation, what: string, at: number) =>
      new ToolError(
        'permission',
        `${what} is held by ${heldBy(conflictView(what, what, r), at)}: an agent releases only its own reservations; ${askThem([conflictView(what, what, r)])}, or a person can release it on the hub's Activity page`,
      );
    const released = (r: Reservation, released: string[], ended: boolean): ReleasedView => ({
      id: r.id,
      holder: r.holder,
      holder_label: label(r),
      paths: released,
      ended,
    });
    const reasonFor = by === 'person' ? 'released by a person on the hub page' : undefined;
    if (id !== undefined) {
      return change((rows): Decision<ReleaseResult> => {
        const at = now();
        const expired = expiredOf(rows, at);
        const r = rows.find((x) => x.id === id && x.expires_at > at);
        if (!r)
          throw notFound(
            `no live reservation ${id}: it was released or expired (cos_files_reservations lists the live ones)`,
          );
        if (!may(r)) throw refuse(r, id, at);
        return {
          changes: [
            ...expired,
            {
              change: 'released',
              reservation: r,
              ended: true,
              by,
              ...(reasonFor ? { reason: reasonFor } : {}),
            },
          ],
          result: {
            released: [released(r, r.paths, true)],
            not_held: [],
            message: `released ${id} (${listOf(r.paths)})`,
          },
        };
      });
    }
    const wanted = normalize(input.paths ?? []);
    return change((rows): Decision<ReleaseResult> => {
      const at = now();
      const expired = expiredOf(rows, at);
      const live = rows.filter((r) => r.expires_at > at);
      const changes: ReservationChange[] = [...expired];
      const out: ReleasedView[] = [];
      const found = new Set<string>();
      for (const r of live) {
        if (!may(r)) continue;
        const taken = r.paths.filter((p) => wanted.includes(p));
        if (taken.length === 0) continue;
        for (const p of taken) found.add(p);
        const rest = r.paths.filter((p) => !taken.includes(p));
        const ended = rest.length === 0;
        changes.push({
          change: 'released',
          reservation: ended ? r : { ...r, paths: rest },
          ended,
          released_paths: taken,
          by,
          ...(reasonFor ? { reason: reasonFor } : {}),
        });
        out.push(released(r, taken, ended));
      }
      const notHeld = wanted.filter((p) => !found.has(p));
      if (out.length === 0) {
        const other = live.find((r) => !may(r) && r.paths.some((p) => notHeld.includes(p)));
        if (other) throw refuse(other, other.paths.find((p) => notHeld.includes(p)) as string, at);
        throw notFound(
          `no reservation of ${by === 'person' ? 'anyone' : 'yours'} holds ${listOf(notHeld)} as written (release by the paths as reserved, or by id; cos_files_reservations lists them)`,
        );
      }
      return {
        changes,
        result: {
          released: out,
          not_held: notHeld,
          message: `released ${listOf(out.flatMap((r) => r.paths))}${notHeld.length > 0 ? `; not held by ${by === 'person' ? 'anyone' : 'you'}: ${listOf(notHeld)}` : ''}`,
        },
      };
    });
  }

  function list(input: ListInput): { entries: ReservationView[]; next_cursor: string | null } {
    const at = now();
    const limit = input.limit ?? 50;
    let after: { at: number; id: string } | undefined;
    if (input.cursor !== undefined) {
      const m = /^(\d{1,15}):(R-[0-9a-f]{10})$/.exec(input.cursor);
      if (!m) throw invalid('cursor must be the next_cursor of a previous page');
      after = { at: Number(m[1]), id: m[2] as string };
    }
    const filter = input.path === undefined ? undefined : compileSpec(normalizeSpec(input.path, paths()));
    const rows = [...view.values()]
      .filter(({ r }) => r.expires_at > at)
      .filter(({ r }) => input.agent === undefined || sameAgent(r.holder, input.agent))
      .filter(({ specs }) => filter === undefined || specs.some((h) => specsOverlap(h, filter)))
      .map(({ r }) => r)
      .sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id))
      .filter((r) => !after || r.created_at > after.at || (r.created_at === after.at && r.id > after.id));
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      entries: page.map(show),
      next_cursor: rows.length > limit && last ? `${last.created_at}:${last.id}` : null,
    };
  }

  /** What a pre-tool event writes: an edit's files, or a shell command's recognisable targets. */
  function targetsOf(
    ev: NormalizedEvent,
    files: readonly StoredFile[],
  ): { path: string; holds: (spec: PathSpec) => boolean }[] {
    if (ev.kind === 'edit')
      return files
        .filter((f) => f.role === 'edit' && !f.path.startsWith('/'))
        .map((f) => ({ path: f.path, holds: (spec: PathSpec) => specHolds(spec, f.path) }));
    const command = ev.detail.command;
    if (ev.kind !== 'command' || typeof command !== 'string') return [];
    const a = agents();
    if (!a) return [];
    const out: { path: string; holds: (spec: PathSpec) => boolean }[] = [];
    for (const t of shellWriteTargets(command)) {
      const abs = t.startsWith('/') ? t : ev.cwd?.startsWith('/') ? `${ev.cwd}/${t}` : `${a.paths.root}/${t}`;
      const stored = a.paths.stored(abs);
      if (stored.startsWith('/') || stored === '') continue;
      let spec: PathSpec;
      try {
        spec = compileSpec(stored.replace(/^(\.\/)+/, ''));
      } catch {
        continue;
      }
      // A plain target (`rm -r src/auth`) may be a directory: whatever is held under it counts too.
      const below = compileSpec(`${stored.replace(/\/+$/, '')}/`);
      out.push({
        path: stored,
        holds: (h: PathSpec) => specsOverlap(spec, h) || specsOverlap(below, h),
      });
    }
    return out;
  }

  function check(
    ev: NormalizedEvent,
    files: readonly StoredFile[],
    hits: readonly ConflictHit[],
  ): HookHolds | null {
    // Most hubs hold no reservation at most moments: the hook path pays for nothing then.
    if (view.size === 0 || ev.phase !== 'pre' || (ev.kind !== 'edit' && ev.kind !== 'command')) return null;
    const targets = targetsOf(ev, files);
    if (targets.length === 0) return null;
    const at = now();
    const found: (ConflictView & { target: string })[] = [];
    for (const { r, specs } of view.values()) {
      if (r.expires_at <= at || !r.exclusive) continue;
      let mine: boolean | undefined;
      for (const t of targets) {
        const j = specs.findIndex((h) => t.holds(h));
        if (j === -1) continue;
        mine ??= sameAgent(r.holder, ev.session);
        if (mine) break;
        found.push({ ...conflictView(t.path, r.paths[j] as string, r), target: t.path });
      }
    }
    if (found.length === 0) return null;
    // An edit conflict with the very agent that reserved the path says less than its reservation.
    const rest = hits.filter((h) => !found.some((f) => f.target === h.path && sameAgent(f.holder, h.agent)));
    const command = ev.kind === 'command';
    const parts = found
      .slice(0, 3)
      .map((f) => `${f.target}${f.held !== f.target ? ` (${f.held})` : ''} is reserved by ${heldBy(f, at)}`);
    const more = found.length > 3 ? ` (and ${found.length - 3} more)` : '';
    const lead = command ? 'this command writes files others reserved: ' : '';
    const conflicts = rest.length > 0 ? `; ${describeHits(rest, at)}` : '';
    return {
      message: `cos hub: ${lead}${parts.join('; ')}${more}${conflicts}. Coordinate before editing: ${askThem(found)}, or wait until it expires.`,
      warnOnly: command,
      hits: rest,
      reservations: found,
    };
  }

  async function handOver(taskId: string, from: string, to: string): Promise<ReservationView[]> {
    const key = agentKey(to);
    const client = agents()?.registry.get(key)?.client ?? null;
    return change((rows) => {
      const at = now();
      const moved = rows.filter(
        (r) => r.expires_at > at && sameTask(r.task_id, taskId) && sameAgent(r.holder, from),
      );
      const changes: ReservationChange[] = [
        ...expiredOf(rows, at),
        ...moved.map(
          (r): ReservationChange => ({
            change: 'handed_over',
            reservation: { ...r, holder: to, holder_client: client ?? r.holder_client },
            ended: false,
            reason: `handed over with ${taskId} by ${label(r)}`,
            by: from,
          }),
        ),
      ];
      return { changes, result: changes.filter((c) => !c.ended).map((c) => show(c.reservation)) };
    });
  }

  /** Ends the reservations `pick` chooses among the live rows, each with its reason (when any is due). */
  async function end(pick: (r: Reservation, at: number) => string | null): Promise<number> {
    const at = now();
    if (![...view.values()].some(({ r }) => r.expires_at <= at || pick(r, at) !== null)) return 0;
    return change((rows) => {
      const t = now();
      const changes: ReservationChange[] = expiredOf(rows, t);
      for (const r of rows) {
        if (r.expires_at <= t) continue;
        const reason = pick(r, t);
        if (reason !== null)
          changes.push({ change: 'released', reservation: r, ended: true, reason, by: 'hub' });
      }
      return { changes, result: changes.length };
    });
  }

  /** Why this machine's holder is gone (its session ended, or silent past the claim grace), or null. */
  function gone(r: Reservation, at: number): string | null {
    const a = agents();
    const sessions = s.observability?.sessions;
    if (!a || !sessions || r.machine !== machine) return null;
    const graceMs = a.settings.get().claim_grace_minutes * 60_000;
    const facts = claimantFacts(r.holder, { registry: a.registry, store: a.store }, sessions);
    const state = claimantState(r.holder, facts, at, graceMs);
    return state.state === 'ended' || state.state === 'silent'
      ? `its holder is gone (${state.reason})`
      : null;
  }

  /** Why a reservation's task no longer holds it (complete or archived), or null. */
  function taskDone(r: Reservation): string | null {
    if (r.task_id === null) return null;
    const board = s.board;
    const n = parseTaskId(r.task_id);
    const status = n === null ? undefined : board?.store.get(n)?.status;
    return status !== undefined && isFinished(status) ? `its task ${r.task_id} is ${status}` : null;
  }

  const sweep = () => end((r, at) => gone(r, at) ?? taskDone(r));

  /** Runs `work` in the background, logging (not throwing) a failure: a database away waits for the next. */
  const background = (what: string, work: () => Promise<unknown>) => {
    if (closed) return;
    work().catch((err: unknown) => {
      const e = err as { category?: string };
      if (e.category === 'unavailable' || e.category === 'transient')
        logger.debug({ err, scope: 'reservations' }, `${what} waits for the database`);
      else logger.warn({ err, scope: 'reservations' }, `${what} failed`);
    });
  };

  async function load(): Promise<void> {
    const rows = await store.all();
    const at = now();
    view.clear();
    for (const r of rows) if (r.expires_at > at) view.set(r.id, { r, specs: r.paths.map(compileSpec) });
  }

  async function loadUntilDone(delayMs: number): Promise<void> {
    try {
      await load();
    } catch (err) {
      if (closed) return;
      logger.warn({ err, scope: 'reservations' }, "the team's reservations could not be read yet; retrying");
      const t = setTimeout(() => void loadUntilDone(Math.min(delayMs * 2, 5000)), delayMs);
      t.unref();
      timers.push(t);
    }
  }

  // SQLite answers at once: the view is there before the first hook.
  if (!team)
    for (const r of store.all() as Reservation[])
      if (r.expires_at > now()) view.set(r.id, { r, specs: r.paths.map(compileSpec) });
  // A holder's SessionEnd ends its reservations at once (this machine's agents: their hub's to judge).
  offs.push(
    events.subscribe((e) => {
      if (e.type === 'agent-event') {
        const d = e.data as { kind?: string; agent?: string; machine?: string };
        if (d.kind !== 'session_end' || typeof d.agent !== 'string' || d.machine !== machine) return;
        const agent = d.agent;
        const linked = new Set([agent, ...(s.observability?.sessions.find(agent).map((m) => m.id) ?? [])]);
        background('ending a gone agent’s reservations', () =>
          end((r) => (r.machine === machine && linked.has(r.holder) ? 'its session ended' : null)),
        );
      } else if (e.type === 'task-updated') {
        const d = e.data as { task_id?: string | null; new_status?: string | null; machine?: string };
        if (!d.task_id || !d.new_status || !isFinished(d.new_status)) return;
        if (d.machine !== undefined && d.machine !== machine) return; // that hub ends them
        const task = d.task_id;
        background('ending a finished task’s reservations', () =>
          end((r) => (sameTask(r.task_id, task) ? `its task ${task} is ${d.new_status}` : null)),
        );
      }
    }),
  );
  if (team) {
    offs.push(
      team.feed.on(RESERVATION_FEED_KIND, (entry: TeamEntry) => {
        const body = entry.body as Partial<ReservationFeedBody> | null;
        const changes: ReservationChange[] = [];
        for (const c of Array.isArray(body?.changes) ? body.changes : []) {
          const reservation = reservationOf(c?.reservation);
          if (!reservation) continue;
          changes.push({ ...c, reservation, ended: c.ended === true, by: String(c.by ?? '') });
        }
        apply(changes);
        announce(changes, entry.machine);
      }),
    );
  }

  return {
    normalize,
    reserve,
    release,
    list,
    check,
    handOver,
    sweep,
    async start() {
      // Alone, hub.db was read when the service was made; a team's rows are read now (retried while away).
      if (team) {
        await loadUntilDone(250);
        const reload = setInterval(() => background('reloading the team’s reservations', load), RELOAD_MS);
        reload.unref();
        timers.push(reload);
      }
      const sweeper = setInterval(() => background('sweeping reservations', sweep), SWEEP_MS);
      sweeper.unref();
      timers.push(sweeper);
    },
    async close() {
      closed = true;
      for (const off of offs) off();
      for (const t of timers) clearTimeout(t);
    },
  };
}
