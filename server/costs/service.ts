// Tokens and cost per agent, task and model (issue 30). The agents' hooks name their transcripts
// (transcript_path); on SessionStart, each finished tool call, Stop and SessionEnd the transcript is
// read on from where the last read stopped, after the hook has its answer: ingest only notes the path
// and sets a timer, and reading runs one bounded step at a time, one transcript at a time, giving the
// thread back between steps. Each step's new usage is stored with the position it reached and
// announced as `usage-recorded`.
import type { Logger } from 'pino';
import { parseTaskId } from '../board/model.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { NormalizedEvent } from '../hooks/normalize.ts';
import type { HubServices } from '../hub-services.ts';
import { checkTranscript } from './folders.ts';
import { costAt, createPriceTable, type PriceTable, type TokenCounts } from './prices.ts';
import { readStep } from './reader.ts';
import { type CostReport, type CostReportInput, costReport } from './report.ts';
import { type SourceRow, UsageStore } from './store.ts';
import type { UsageEntry } from './transcripts/usage.ts';

declare module '../hub-services.ts' {
  interface HubServices {
    costs: CostsService;
  }
}

/** What `usage-recorded` carries: one agent's new usage of one model from one reading step. */
export interface UsageRecordedData {
  agent_session: string;
  client: string;
  model: string | null;
  task_id: string | null;
  /** Input billed at the input price (cache reads and writes apart), as the transcripts count them. */
  tokens: { input: number; output: number; cache_write: number; cache_read: number };
  /** Null when the model has no price. */
  cost_usd: number | null;
  records: number;
  at: number;
}

export interface CostsServiceDeps {
  config: Config;
  db: Db;
  events: EventBus;
  logger: Logger;
  services: HubServices;
  now: () => number;
}

export interface TranscriptView {
  path: string;
  client: string;
  agent_session: string;
  offset: number;
  size: number;
  records: number;
  read_at: number | null;
  error: string | null;
}

export interface CostsService {
  readonly prices: PriceTable;
  /** From hook ingest, after the answer is decided: notes the transcript and schedules a read. Never throws. */
  observe(ev: NormalizedEvent): void;
  report(input: CostReportInput): CostReport;
  transcripts(): TranscriptView[];
  /** Reads every scheduled transcript now and settles when done (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** After a finished tool call: tool calls come in bursts, one read after the burst. */
const AFTER_TOOL_MS = 1_000;
/** After Stop and SessionEnd: the turn's last message is written. */
const AFTER_STOP_MS = 50;
/** Steps per transcript per turn before the next transcript gets the thread. */
const STEPS_PER_TURN = 16;

interface Watched {
  path: string;
  client: string;
  agent: string;
  timer?: NodeJS.Timeout | undefined;
  due: number;
}

export function createCostsService(deps: CostsServiceDeps): CostsService {
  const { config, db, events, logger, services, now } = deps;
  const store = new UsageStore(db);
  const prices = createPriceTable(config.stateDir);
  // The transcript each hook session named last, and the reads waiting.
  const bySession = new Map<string, Watched>();
  const queue: Watched[] = [];
  let running: Promise<void> | null = null;
  let closed = false;
  const refused = new Map<string, string>();
  /** Transcripts whose read is waiting on a timer (a session that ended is still here until read). */
  const waiting = new Set<Watched>();

  function schedule(w: Watched, delayMs: number): void {
    const due = now() + delayMs;
    if (w.timer && w.due <= due) return;
    if (w.timer) clearTimeout(w.timer);
    w.due = due;
    waiting.add(w);
    w.timer = setTimeout(() => {
      w.timer = undefined;
      waiting.delete(w);
      enqueue(w);
    }, delayMs);
    w.timer.unref();
  }

  function enqueue(w: Watched): void {
    if (closed) return;
    if (!queue.includes(w)) queue.push(w);
    running ??= drain().finally(() => {
      running = null;
    });
  }

  async function drain(): Promise<void> {
    while (queue.length > 0 && !closed) {
      const w = queue.shift() as Watched;
      try {
        const more = await readSome(w);
        if (more) queue.push(w);
      } catch (err) {
        logger.warn({ err, scope: 'costs', transcript: w.path }, 'reading a transcript failed');
      }
      // Give the thread back between transcripts and steps: hook answers come first.
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Reads up to STEPS_PER_TURN steps of one transcript; true when it has more to read. */
  async function readSome(w: Watched): Promise<boolean> {
    const check = checkTranscript(w.path, w.client, config.transcriptRoots);
    if (!check.ok) {
      if (refused.get(w.path) !== check.reason) {
        refused.set(w.path, check.reason);
        logger.info({ scope: 'costs', agent: w.agent }, `transcript not read: ${check.reason}`);
      }
      return false;
    }
    let src: SourceRow = store.source(check.real) ?? store.addSource(check.real, check.client, w.agent);
    for (let i = 0; i < STEPS_PER_TURN && !closed; i++) {
      let step: Awaited<ReturnType<typeof readStep>>;
      try {
        step = await readStep(src);
      } catch (err) {
        store.setError(src.id, `cannot read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, now());
        return false;
      }
      if (step.rotated)
        logger.info(
          { scope: 'costs', transcript: src.path },
          'transcript replaced: read again from its start',
        );
      const added = store.commitStep(src, step.entries, step.position, now());
      if (added.length > 0) announce(src, added);
      src = store.source(src.path) as SourceRow;
      if (step.done) return false;
      await new Promise((r) => setImmediate(r));
    }
    return true;
  }

  function announce(src: SourceRow, added: (UsageEntry & { at: number })[]): void {
    const board = (services as Partial<HubServices>).board;
    const task = board ? (board.claimedBy(src.agent_session)?.id ?? null) : null;
    const byModel = new Map<string, UsageRecordedData & { sums: TokenCounts }>();
    for (const e of added) {
      const k = e.model ?? '';
      let d = byModel.get(k);
      if (!d) {
        d = {
          agent_session: src.agent_session,
          client: src.client,
          model: e.model,
          task_id: task,
          tokens: { input: 0, output: 0, cache_write: 0, cache_read: 0 },
          cost_usd: null,
          records: 0,
          at: e.at,
          sums: { input_tokens: 0, output_tokens: 0, cache_write_tokens: 0, cache_read_tokens: 0 },
        };
        byModel.set(k, d);
      }
      d.sums.input_tokens += e.input_tokens;
      d.sums.output_tokens += e.output_tokens;
      d.sums.cache_write_tokens += e.cache_write_tokens;
      d.sums.cache_read_tokens += e.cache_read_tokens;
      d.records++;
      d.at = Math.max(d.at, e.at);
    }
    for (const { sums, ...d } of byModel.values()) {
      const hit = prices.priceOf(d.model);
      d.cost_usd = hit ? Math.round(costAt(hit.price, sums) * 1e6) / 1e6 : null;
      d.tokens = {
        input: sums.input_tokens,
        output: sums.output_tokens,
        cache_write: sums.cache_write_tokens,
        cache_read: sums.cache_read_tokens,
      };
      events.publish<UsageRecordedData>('usage-recorded', d);
    }
  }

  /** A claim's agent session as transcripts know it: an MCP session that named a hook session is that one. */
  const canonical = (agent: string): string => store.namedBy(agent) ?? agent;

  return {
    prices,
    observe(ev) {
      if (closed) return;
      try {
        let w = bySession.get(ev.session);
        if (ev.transcript && (!w || w.path !== ev.transcript)) {
          if (w?.timer) clearTimeout(w.timer);
          w = { path: ev.transcript, client: ev.client, agent: ev.session, due: 0 };
          bySession.set(ev.session, w);
          // Bounded: the sessions a hub hears of in a day are few hundred; forget the oldest past 10,000.
          if (bySession.size > 10_000) bySession.delete(bySession.keys().next().value as string);
        }
        if (!w) return;
        if (ev.kind === 'stop' || ev.kind === 'session_end') schedule(w, AFTER_STOP_MS);
        else if (ev.kind === 'session_start' || ev.phase === 'post' || ev.phase === 'failed')
          schedule(w, AFTER_TOOL_MS);
        if (ev.kind === 'session_end') bySession.delete(ev.session);
      } catch (err) {
        logger.warn({ err, scope: 'costs' }, 'noting a transcript failed');
      }
    },
    report(input) {
      let task: number | null = null;
      if (input.task_id !== undefined) {
        task = parseTaskId(input.task_id);
        if (task === null)
          throw new ToolError(
            'validation',
            `task_id "${input.task_id}" is not a task id: pass one like TASK-7`,
          );
        const exists = db.prepare('SELECT 1 FROM tasks WHERE id = ?').get(task);
        const history = db.prepare('SELECT 1 FROM task_events WHERE task_id = ? LIMIT 1').get(task);
        if (!exists && !history)
          throw new ToolError(
            'not_found',
            `no task ${input.task_id} on this board: cos_task_list lists them`,
          );
      }
      const board = (services as Partial<HubServices>).board;
      return costReport(
        {
          db,
          store,
          prices,
          canonical,
          budgetUsd: () => board?.settings().budget.task_usd ?? null,
        },
        input,
        task,
      );
    },
    transcripts() {
      return store.sources().map((s) => ({
        path: s.path,
        client: s.client,
        agent_session: s.agent_session,
        offset: s.offset,
        size: s.size,
        records: s.records,
        read_at: s.read_at,
        error: s.error,
      }));
    },
    async idle() {
      for (const w of [...waiting]) {
        clearTimeout(w.timer);
        w.timer = undefined;
        waiting.delete(w);
        enqueue(w);
      }
      // Ended sessions' reads are in the queue or running.
      while (running) await running;
    },
    async close() {
      closed = true;
      for (const w of waiting) clearTimeout(w.timer);
      waiting.clear();
      queue.length = 0;
      await running?.catch(() => {});
    },
  };
}
