// The board across machines: a hub in a team (COS_DATABASE_URL) writes every change of a task's state
// to the team's record of it in PostgreSQL (team_tasks) before its own file, and shows the newer of its
// file and the record until git brings the file. Task files stay the truth in git; the record is the
// team's arbiter of who holds what now.
//
// - A change is one conditional statement in PostgreSQL (never a read, then a write): it takes effect
//   only when the record is not newer than what this hub believes, and a move into in_progress only
//   when nobody holds the task. Its feed entry commits in the same transaction, so every other hub
//   hears of it at COMMIT. Then the local file goes through the durable write path; when that fails or
//   decides otherwise, the record is put back as it was (conditionally: unless it moved on meanwhile).
// - "Newer" is by version: a record whose version is greater than the file's shows its status, holder
//   and machine over the index row (store.ts keeps the file's own values beside them), so every query
//   of the board sees the effective state at the speed it always had; a file whose version is equal or
//   greater shows itself (git brought it, or a person edited it).
// - Records live in memory: loaded at start, kept by this hub's own writes and the other hubs' feed
//   entries (each record's rev orders them), and applied to the row whenever the row is indexed or a
//   record arrives. A record from another hub that changes what a row shows is announced on the local
//   event bus as the board's own changes are (`task-updated`, with the machine).
import type { Logger } from 'pino';
import { ToolError } from '../errors.ts';
import { KeyedQueue } from '../keyed-queue.ts';
import type { Queryable } from '../team/database.ts';
import type { TeamEntry } from '../team/feed.ts';
import type { Team } from '../team/team.ts';
import { type ChangeSource, isStatus, parseTaskId, type Status, taskKey } from './model.ts';
import type { BoardStore, Effective, FileState } from './store.ts';
import type { RecordChange, RecordState, Step, TaskUpdatedEvent, WritePath } from './write-path.ts';
import { taskQueueKey } from './write-path.ts';

/** A task's team record as a hub keeps it. */
export interface TeamRecord {
  id: number;
  /** TASK-<n>, unpadded. */
  key: string;
  status: Status;
  /** The holder; null unless in_progress. */
  agent_session: string | null;
  machine: string;
  /** The task file version the record corresponds to; 0: no opinion (an undone reservation or claim). */
  version: number;
  title: string;
  /** Bumped on every write: of two records of one task, the greater rev is the newer. */
  rev: number;
}

/** The feed entry of a team record's write. */
export const BOARD_RECORD = 'board.record';

interface RecordEntry {
  record: TeamRecord;
  change: TaskUpdatedEvent['change'];
  source: ChangeSource;
}

/** What a claim attempt answers when another hub's record refused it. */
export const REFUSED: unique symbol = Symbol('refused by the team');

/** Re-plans of one change whose record another hub kept changing under it. */
const MAX_ATTEMPTS = 20;
/** Retries of putting a record back after the local write failed, while the database is away. */
const MAX_UNDO_RETRIES = 30;

/** Rows of team_tasks as PostgreSQL answers them. */
interface RecordRow {
  key: string;
  n: number;
  status: string;
  agent_session: string | null;
  machine: string;
  version: number;
  title: string;
  rev: string | number;
}

const COLUMNS = 'key, n, status, agent_session, machine, version, title, rev';

function fromRow(r: RecordRow): TeamRecord | undefined {
  if (!isStatus(r.status)) return undefined;
  return {
    id: r.n,
    key: r.key,
    status: r.status,
    agent_session: r.agent_session,
    machine: r.machine,
    version: r.version,
    title: r.title,
    rev: Number(r.rev),
  };
}

/** A record from another hub's entry, checked (the feed carries JSON). */
function fromEntry(body: unknown): RecordEntry | undefined {
  const b = body as Partial<RecordEntry> | null;
  const r = b?.record as Partial<TeamRecord> | undefined;
  if (!r || typeof r.key !== 'string' || !isStatus(r.status)) return undefined;
  const id = parseTaskId(r.key);
  if (id === null || typeof r.version !== 'number' || typeof r.rev !== 'number') return undefined;
  const source = b?.source === 'api' || b?.source === 'mcp' || b?.source === 'file' ? b.source : 'api';
  return {
    record: {
      id,
      key: r.key,
      status: r.status,
      agent_session: typeof r.agent_session === 'string' ? r.agent_session : null,
      machine: typeof r.machine === 'string' ? r.machine : 'unknown',
      version: r.version,
      title: typeof r.title === 'string' ? r.title : '',
      rev: r.rev,
    },
    change: typeof b?.change === 'string' ? (b.change as TaskUpdatedEvent['change']) : 'moved',
    source,
  };
}

const holderOf = (s: RecordState): string | null => (s.status === 'in_progress' ? s.agent_session : null);

const sameState = (a: RecordState | null, b: RecordState | null): boolean =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.status === b.status &&
    a.version === b.version &&
    holderOf(a) === holderOf(b));

/** Whether two plans of one change do the same to its record (a re-run of the step may not). */
const sameChange = (a: RecordChange | undefined, b: RecordChange): boolean =>
  a !== undefined && a.id === b.id && sameState(a.from, b.from) && sameState(a.to, b.to);

type Written = { ok: true; record: TeamRecord; prior: TeamRecord | null } | { ok: false };

export interface TeamBoardOptions {
  team: Team;
  store: BoardStore;
  writes: WritePath;
  log: Logger;
}

export type TeamBoard = ReturnType<typeof createTeamBoard>;

export function createTeamBoard({ team, store, writes, log }: TeamBoardOptions) {
  const { db, machine } = team;
  /** The newest record this hub knows of each task (by task number). */
  const records = new Map<number, TeamRecord>();
  /** This hub's own records committed in PostgreSQL whose file is being written now. */
  const pending = new Map<number, TeamRecord>();
  /** Tasks with a change of this hub in flight: other hubs' records for them wait until it ends. */
  const inflight = new Set<number>();
  const deferred = new Map<number, RecordEntry>();
  /** One team change per task at a time in this process, and one claim at a time (claims.ts). */
  const queue = new KeyedQueue();
  let loaded = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let retryMs = 250;
  const undoTimers = new Set<NodeJS.Timeout>();

  /** What a row of a file in state `file` shows: the newer of the file and the record. */
  function overlay(id: number, file: FileState): Effective {
    const own = pending.get(id);
    // This hub's own record counts once its file is being installed (same version), not before: the
    // change's step plans from what the hub believed before the record was written.
    const rec = own !== undefined && file.version >= own.version ? own : records.get(id);
    if (rec === undefined || rec.version === 0) return { ...file, machine: null, overlaid: false };
    if (rec.version > file.version)
      return {
        status: rec.status,
        agent_session: rec.agent_session,
        version: rec.version,
        machine: rec.machine,
        overlaid: true,
      };
    return { ...file, machine: rec.version === file.version ? rec.machine : null, overlaid: false };
  }

  /**
   * Keeps `rec` when it is newer than the record known, and applies it to the task's row; a record of
   * another hub that changes what the row shows is announced (`entry`).
   */
  function accept(rec: TeamRecord, entry?: RecordEntry): void {
    const known = records.get(rec.id);
    if (known !== undefined && known.rev >= rec.rev) return;
    records.set(rec.id, rec);
    try {
      writes.write(() => {
        const changed = store.reapply(rec.id);
        if (changed === undefined || entry === undefined) return;
        const { before, after } = changed;
        writes.announce(
          rec.id,
          {
            task_id: after.key,
            change: entry.change,
            old_status: before.status,
            new_status: after.status,
            agent_session: after.agent_session,
            source: entry.source,
            version: after.version,
            machine: rec.machine,
          },
          before.status !== after.status ? 'status' : null,
          { detail: { machine: rec.machine } },
        );
      });
    } catch (err) {
      // The index was busy: the record is kept, and the row shows it the next time it is indexed or
      // the records are applied again (shortly).
      log.warn({ err, task: rec.key }, 'a team record could not be applied to the board index yet');
      schedule(() => applyAll(), 200);
    }
  }

  function receive(entry: TeamEntry): void {
    const e = fromEntry(entry.body);
    if (e === undefined) return;
    if (inflight.has(e.record.id)) {
      const d = deferred.get(e.record.id);
      if (d === undefined || d.record.rev < e.record.rev) deferred.set(e.record.id, e);
      return;
    }
    accept(e.record, e);
  }

  function applyAll(): void {
    writes.write(() => {
      for (const id of new Set([...store.teamRows(), ...records.keys()])) store.reapply(id);
    });
  }

  function schedule(fn: () => void, ms: number): void {
    if (closed) return;
    const t = setTimeout(() => {
      undoTimers.delete(t);
      fn();
    }, ms);
    t.unref();
    undoTimers.add(t);
  }

  /** Reads every record of the team and applies them; retried in the background while the database is away. */
  async function load(): Promise<boolean> {
    try {
      const rows = await db.query<RecordRow>(`SELECT ${COLUMNS} FROM team_tasks WHERE team = $1`, [team.key]);
      for (const r of rows) {
        const rec = fromRow(r);
        const known = rec && records.get(rec.id);
        if (rec && (known === undefined || known.rev < rec.rev)) records.set(rec.id, rec);
      }
      applyAll();
      loaded = true;
      retryMs = 250;
      return true;
    } catch (err) {
      log.warn({ err: db.describe(err) }, 'the team board records could not be read; retrying');
      if (!closed) {
        retry = setTimeout(() => {
          retry = undefined;
          void load();
        }, retryMs);
        retry.unref();
        retryMs = Math.min(retryMs * 2, 5000);
      }
      return false;
    }
  }

  const unsubscribe = team.feed.on(BOARD_RECORD, receive);

  async function current(q: Queryable, key: string): Promise<TeamRecord | undefined> {
    const { rows } = await q.query<RecordRow>(
      `SELECT ${COLUMNS} FROM team_tasks WHERE team = $1 AND key = $2`,
      [team.key, key],
    );
    return rows[0] === undefined ? undefined : fromRow(rows[0]);
  }

  /**
   * Writes change `rc` to the task's team record, in one conditional statement: when the record is not
   * newer than what this hub believes (`from`), and for a move into in_progress only when nobody holds
   * it. Refused: the record as it is now is applied here, and `{ok: false}` says so.
   */
  async function put(
    rc: RecordChange,
    change: TaskUpdatedEvent['change'],
    source: ChangeSource,
  ): Promise<Written> {
    const key = taskKey(rc.id);
    const believed = rc.from ?? rc.to;
    const claim = rc.to.status === 'in_progress' && believed.status !== 'in_progress';
    // Not newer than believed: every write bumps the version, so a record at the believed version is
    // the one this hub planned from, whatever status it says (a file edited by hand keeps its version
    // and may say another: the file this hub shows is what a person wrote, and it wins).
    const condition = `${claim ? "t.status <> 'in_progress' AND " : ''}t.version <= $9`;
    let refusedBy: TeamRecord | undefined;
    const out = await db.transaction(async (q): Promise<Written> => {
      // `old` is the record as this statement found it (locked), kept to put back if the file fails.
      const { rows } = await q.query<{ rev: string; old: RecordRow | null }>(
        `WITH old AS (
           SELECT ${COLUMNS} FROM team_tasks WHERE team = $1 AND key = $2 FOR UPDATE
         )
         INSERT INTO team_tasks AS t (team, key, n, status, agent_session, machine, version, title)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (team, key) DO UPDATE SET status = excluded.status,
           agent_session = excluded.agent_session, machine = excluded.machine, version = excluded.version,
           title = excluded.title, rev = t.rev + 1, updated_at = now()
         WHERE ${condition}
         RETURNING t.rev, (SELECT row_to_json(old) FROM old) AS old`,
        [
          team.key,
          key,
          rc.id,
          rc.to.status,
          holderOf(rc.to),
          machine,
          rc.to.version,
          rc.title,
          believed.version,
        ],
      );
      const row = rows[0];
      if (row === undefined) {
        refusedBy = await current(q, key);
        return { ok: false };
      }
      const record: TeamRecord = {
        id: rc.id,
        key,
        status: rc.to.status,
        agent_session: holderOf(rc.to),
        machine,
        version: rc.to.version,
        title: rc.title,
        rev: Number(row.rev),
      };
      await team.feed.append(q, [
        { kind: BOARD_RECORD, body: { record, change, source } satisfies RecordEntry },
      ]);
      return { ok: true, record, prior: row.old === null ? null : (fromRow(row.old) ?? null) };
    });
    if (refusedBy !== undefined)
      accept(refusedBy, {
        record: refusedBy,
        change: refusedBy.status === 'in_progress' ? 'claimed' : 'moved',
        source: 'api',
      });
    return out;
  }

  /**
   * Puts the record back as it was before `written` (a placeholder of version 0 when there was none),
   * unless it moved on since. Retried in the background while the database is away: a record this hub
   * wrote for a change it then refused must not stay.
   */
  async function undo(
    written: TeamRecord,
    prior: TeamRecord | null,
    from: RecordState | null,
    tries = 0,
  ): Promise<void> {
    pending.delete(written.id);
    const back = prior ?? {
      ...written,
      status: from?.status ?? written.status,
      agent_session: null,
      version: 0,
    };
    try {
      const restored = await db.transaction(async (q) => {
        const { rows } = await q.query<{ rev: string }>(
          `UPDATE team_tasks SET status = $3, agent_session = $4, machine = $5, version = $6, title = $7,
             rev = rev + 1, updated_at = now()
           WHERE team = $1 AND key = $2 AND rev = $8 RETURNING rev`,
          [
            team.key,
            written.key,
            back.status,
            back.agent_session,
            back.machine,
            back.version,
            back.title,
            written.rev,
          ],
        );
        if (rows[0] === undefined) return undefined;
        const record: TeamRecord = { ...back, id: written.id, key: written.key, rev: Number(rows[0].rev) };
        await team.feed.append(q, [
          { kind: BOARD_RECORD, body: { record, change: 'moved', source: 'api' } satisfies RecordEntry },
        ]);
        return record;
      });
      if (restored) accept(restored);
    } catch (err) {
      if (tries >= MAX_UNDO_RETRIES) {
        log.error(
          { err: db.describe(err), task: written.key },
          `${written.key}'s team record could not be put back after its file was not written; move it by hand`,
        );
        return;
      }
      schedule(() => void undo(written, prior, from, tries + 1), Math.min(250 * 2 ** tries, 5000));
    }
  }

  /** After this hub's change of task `id` ended: what other hubs said of it meanwhile applies now. */
  function settle(id: number): void {
    inflight.delete(id);
    const d = deferred.get(id);
    if (d !== undefined) {
      deferred.delete(id);
      accept(d.record, d);
    }
  }

  /**
   * One change of task `id` through the team: `step` plans it from the board as this hub shows it (as
   * for writes.durableChange, and like it, runs more than once); the record is written in PostgreSQL,
   * then the file. `refusal`: what a claim does when another hub's record refused it (REFUSED); a move
   * plans again from the record it now knows.
   */
  async function run<T>(
    id: number,
    step: () => Step<T>,
    refusal: 'replan' | 'return',
    source: ChangeSource,
  ): Promise<T | typeof REFUSED> {
    return queue.run(`team:${id}`, async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const planned = writes.write(step);
        if ('done' in planned) return planned.done;
        const rc = planned.record;
        if (rc === undefined) throw new Error(`a team change of ${taskKey(id)} without its record`);
        inflight.add(id);
        try {
          const written = await put(rc, changeOf(rc), source);
          if (!written.ok) {
            if (refusal === 'return') return REFUSED;
            continue;
          }
          pending.set(id, written.record);
          let changedMind = false;
          let out: T;
          try {
            out = await writes.durableChange(taskQueueKey(id), (): Step<T> => {
              const now = step();
              if ('done' in now || !sameChange(now.record, rc)) {
                changedMind = true;
                return { done: undefined as T };
              }
              return now;
            });
          } catch (err) {
            // The file may be in place even so (a failure after its commit): then the record stands.
            const row = store.get(id);
            if (row === undefined || store.fileState(row).version !== rc.to.version)
              await undo(written.record, written.prior, rc.from);
            else ownRecord(written.record);
            throw err;
          }
          if (changedMind) {
            await undo(written.record, written.prior, rc.from);
            continue;
          }
          ownRecord(written.record);
          return out;
        } finally {
          settle(id);
        }
      }
      throw new ToolError(
        'transient',
        `${taskKey(id)} kept changing on other machines while being written; retry`,
        {
          retryable: true,
        },
      );
    });
  }

  function ownRecord(rec: TeamRecord): void {
    pending.delete(rec.id);
    accept(rec);
  }

  /** The change of a record as the live stream names it. */
  function changeOf(rc: RecordChange): TaskUpdatedEvent['change'] {
    if (rc.from === null) return 'created';
    if (rc.from.status === rc.to.status) return 'edited';
    return rc.to.status === 'in_progress' && holderOf(rc.to) !== null ? 'claimed' : 'moved';
  }

  /** The creates of this hub, one after another (see reserve). */
  let reserving: Promise<unknown> = Promise.resolve();

  /**
   * A new task's id, reserved in the team before the file is written: the first number free both here
   * (`localNext`) and in every hub's records, so two machines never create the same TASK-n. The
   * reservation is the task's first record (version 1).
   */
  async function reserve(title: string, status: Status, localNext: number): Promise<TeamRecord> {
    // Creates take turns, per team under its lock (so concurrent ones do not all pick the same number and
    // retry), and first per hub here: a burst of creates on one hub waits in this process, holding no
    // connection, rather than as statements blocked on the lock, where the query timeout would call a
    // long queue an unreachable database.
    const turn = reserving.then(() => reserveInTeam(title, status, localNext));
    reserving = turn.catch(() => {});
    return turn;
  }

  async function reserveInTeam(title: string, status: Status, localNext: number): Promise<TeamRecord> {
    const record = await db.transaction(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 11))', [team.key]);
      const { rows } = await q.query<{ n: number; rev: string }>(
        `INSERT INTO team_tasks (team, key, n, status, agent_session, machine, version, title)
         SELECT $1, 'TASK-' || c.n, c.n, $3, NULL, $4, 1, $5
         FROM (SELECT greatest($2::integer, coalesce(max(n) + 1, 1)) AS n FROM team_tasks WHERE team = $1) c
         ON CONFLICT (team, key) DO NOTHING
         RETURNING n, rev`,
        [team.key, localNext, status, machine, title],
      );
      const row = rows[0];
      if (row === undefined)
        throw new ToolError('transient', 'another machine took the same task id at once; retry', {
          retryable: true,
        });
      const rec: TeamRecord = {
        id: row.n,
        key: taskKey(row.n),
        status,
        agent_session: null,
        machine,
        version: 1,
        title,
        rev: Number(row.rev),
      };
      await team.feed.append(q, [
        { kind: BOARD_RECORD, body: { record: rec, change: 'created', source: 'api' } satisfies RecordEntry },
      ]);
      return rec;
    });
    return record;
  }

  /**
   * Creates a task under a reserved id: `write(id)` writes its file, or answers null when that id's file
   * name turned out to be taken here (a file dropped in by hand); the reservation is then undone and
   * another id reserved.
   */
  async function create<T>(
    title: string,
    status: Status,
    write: (id: number) => Promise<T | null>,
  ): Promise<T> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const rec = await reserve(title, status, store.peekId());
      inflight.add(rec.id);
      pending.set(rec.id, rec);
      let out: T | null;
      try {
        out = await write(rec.id);
      } catch (err) {
        await undo(rec, null, null);
        throw err;
      } finally {
        settle(rec.id);
      }
      if (out === null) {
        await undo(rec, null, null);
        continue;
      }
      ownRecord(rec);
      return out;
    }
    throw new ToolError('transient', 'no free task id was found; retry', { retryable: true });
  }

  return {
    overlay,
    /** Reads the team's records (at start); resolves after the first try, retrying in the background. */
    load,
    get loaded() {
      return loaded;
    },
    /** A change of task `id`'s state through the team (moves, edits, releases). */
    change: async <T>(id: number, step: () => Step<T>, source: ChangeSource): Promise<T> =>
      (await run(id, step, 'replan', source)) as T,
    /** A claim of task `id`: REFUSED when another hub's record says it is taken (choose another). */
    attempt: <T>(id: number, step: () => Step<T>, source: ChangeSource): Promise<T | typeof REFUSED> =>
      run(id, step, 'return', source),
    /** One claim at a time in this process (claims choose from the same index). */
    serial: <T>(job: () => Promise<T>): Promise<T> => queue.run('claim', job),
    create,
    /** The record this hub knows of task `id` (tests, cos doctor). */
    record: (id: number): TeamRecord | undefined => records.get(id),
    machine,
    close(): void {
      closed = true;
      unsubscribe();
      if (retry) clearTimeout(retry);
      for (const t of undoTimers) clearTimeout(t);
      undoTimers.clear();
    },
  };
}
