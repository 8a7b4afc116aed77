// Writes recorded tool calls on a thread of their own (call-writer-thread.mjs), so an INSERT never
// runs on the thread that answers calls: at thousands of calls a second, SQLite's few µs a row were
// the largest part of what recording cost. Batches arrive encoded (call-batch.ts) and their buffers are
// transferred; a shared counter of committed rows lets a query wait, briefly and only when it must,
// until every call recorded so far is visible.
import { Worker } from 'node:worker_threads';
import type { FileIdentity } from '../db/open.ts';
import type { CallBatchMessage, OriginRow } from './call-batch.ts';

export interface CallWriterOptions {
  dbPath: string;
  /** Which file dbPath was when the hub opened it: the thread refuses any other found there. */
  dbIdentity?: FileIdentity | undefined;
  busyTimeoutMs: number;
  /** A write failed (rows kept and retried) or rows were dropped after too long. */
  onFailure: (failure: { code: string | null; message: string; dropped: number }) => void;
}

const ROWS_PER_INSERT = 50;
/** Rows kept while the database refuses writes; beyond it the oldest are dropped and counted. */
const MAX_PENDING = 20_000;
const RETRY_MS = 2_000;

export class CallWriter {
  private worker: Worker | undefined;
  /**
   * Shared with the thread: [0] rows committed (int32, wrapping), [1] 1 while its last write failed
   * (the database locked, full, read-only), so nobody waits for rows that cannot arrive yet.
   */
  private readonly committed = new Int32Array(new SharedArrayBuffer(8));
  /** Rows posted to the thread (int32, wrapping like the counter). */
  private posted = 0;
  private closing: Promise<number> | undefined;
  /**
   * Set when the thread found another file (or none) where the hub's database was: no new thread would
   * find the hub's file either, so recording stops until a restart rather than start one per batch.
   */
  private stopped = false;

  constructor(private readonly options: CallWriterOptions) {}

  /**
   * Every origin the current thread has been told of: a thread that stops is replaced by one that must
   * know them too. Forgotten with the thread's when the batch says so.
   */
  private origins: OriginRow[] = [];
  /** Origin ids a released thread handed back (origin number → tool_call_origins.id), for the next one. */
  private originIds: [number, number][] = [];

  /** Hands a batch to the writer thread (its buffer moves there), starting the thread when needed. */
  write(batch: CallBatchMessage): void {
    if (batch.count === 0 || this.closing || this.stopped) return;
    if (batch.resetOrigins) {
      this.origins = [];
      this.originIds = [];
    }
    for (const origin of batch.origins) this.origins.push(origin);
    const worker = this.worker ?? this.start();
    this.posted = (this.posted + batch.count) | 0;
    worker.postMessage({ type: 'calls', ...batch }, [batch.rows.buffer as ArrayBuffer]);
  }

  /**
   * Waits until every row posted so far is committed, at most `timeoutMs`, and not at all while the
   * thread's writes are failing (a query then answers with what is there rather than stall the hub);
   * true when they all are.
   */
  settle(timeoutMs: number): boolean {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const committed = Atomics.load(this.committed, 0);
      if (((this.posted - committed) | 0) <= 0) return true;
      if (Atomics.load(this.committed, 1) === 1) return false;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.committed, 0, committed, left);
    }
  }

  /** Writes what is queued and stops the thread; resolves with the rows it could not write. */
  close(): Promise<number> {
    this.closing ??= new Promise<number>((resolve) => {
      const worker = this.worker;
      if (!worker) return resolve(0);
      const timer = setTimeout(() => void worker.terminate().then(() => resolve(-1)), 10_000);
      worker.on('message', (m: { type: string; unwritten?: number }) => {
        if (m.type !== 'closed') return;
        clearTimeout(timer);
        void worker.terminate().then(() => resolve(m.unwritten ?? 0));
      });
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve(0);
      });
      worker.postMessage({ type: 'close' });
    });
    return this.closing;
  }

  /**
   * Stops the thread when everything posted to it is committed, keeping what it learnt (the ids of the
   * origins it wrote), so the thread the next batch starts goes on where this one stopped. True when a
   * thread was let go.
   */
  release(): boolean {
    const worker = this.worker;
    if (!worker || this.closing) return false;
    if (((this.posted - Atomics.load(this.committed, 0)) | 0) > 0) return false;
    this.worker = undefined;
    worker.on('message', (m: { type: string; ids?: [number, number][] }) => {
      // Rows are all committed (checked above), so nothing is lost if this never comes: the next
      // thread then writes its origins anew.
      if (m.type === 'closed' && m.ids && this.worker === undefined) this.originIds = m.ids;
    });
    worker.postMessage({ type: 'close' });
    return true;
  }

  /** Starts the thread now rather than on the first write (the hub does, so its threads are up front). */
  start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./call-writer-thread.mjs', import.meta.url), {
      workerData: {
        dbPath: this.options.dbPath,
        dbIdentity: this.options.dbIdentity,
        busyTimeoutMs: this.options.busyTimeoutMs,
        origins: this.origins,
        originIds: this.originIds,
        rowsPerInsert: ROWS_PER_INSERT,
        maxPending: MAX_PENDING,
        retryMs: RETRY_MS,
        committed: this.committed.buffer,
      },
      // The parent's flags (--test, --import tsx, --inspect …) are not this thread's business.
      execArgv: [],
    });
    worker.unref();
    worker.on('message', (m: { type: string; code?: string | null; message?: string; dropped?: number }) => {
      if (m.type === 'failed')
        this.options.onFailure({ code: m.code ?? null, message: m.message ?? '', dropped: m.dropped ?? 0 });
    });
    worker.on('error', (err: Error & { code?: unknown }) => {
      if (err.code === 'COS_DB_MOVED') this.stopped = true;
      this.options.onFailure({
        code: typeof err.code === 'string' ? err.code : null,
        message: `the call writer thread failed: ${err.message}`,
        dropped: 0,
      });
    });
    worker.once('exit', () => {
      if (this.worker !== worker) return;
      // Rows it held are gone; nobody may wait for them. The next write starts a new thread.
      this.worker = undefined;
      const lost = (this.posted - Atomics.load(this.committed, 0)) | 0;
      this.posted = Atomics.load(this.committed, 0);
      if (lost > 0 && !this.closing)
        this.options.onFailure({ code: null, message: 'the call writer thread stopped', dropped: lost });
    });
    this.worker = worker;
    return worker;
  }
}
