// Durable file writes that cost a busy event loop no extra turn. A write's temp file is written and
// fsynced on a thread of its own (file-writer-thread.mjs); the caller's `install` (the rename inside
// the index transaction) then runs on the main thread, and the directory is fsynced once for every
// install of the same moment, before the writes resolve.
//
// Why a thread and a shared array rather than fs.fsync's callback: a callback from libuv's threadpool
// runs at the next turn of the event loop, and on a hub answering 32 sessions a turn lasts 20-30 ms, so
// every await on the disk cost a write a turn (in bench:load a write took three turns to a read's one,
// and the writes were the latency's tail). The fsync takes about 1 ms; by the end of the turn that asked
// for it (setImmediate, after the turn's other calls) it is done, and the slot the thread set says so
// without waiting for its message. An idle hub is woken by the message instead.
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { hiddenName, releaseOld } from './atomic-write.ts';

const PENDING = 0;
const DONE = 1;
const FAILED = 2;
/** Writes in flight at once with a slot; more wait for their thread's message (a turn later). */
const SLOTS = 1024;

interface Job {
  id: number;
  /** Its place in the shared array, or -1 (every slot in use). */
  slot: number;
  tmp: string;
  held: string | null;
  install: (tmp: string, held: string | null) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** Set by the thread's message: the temp file is durable. */
  reported?: boolean;
  /** Set by the thread's message when it failed. */
  error?: Error;
}

export interface FileWriterOptions {
  /** fsync the directory after the installs (default true; benches and tests may turn it off). */
  syncDir?: boolean;
  /** Writes in flight with a slot in the shared array (default 1024; tests use fewer). */
  slots?: number;
}

/** Makes renames and links durable; some filesystems refuse to open a directory, which is not fatal. */
function fsyncDir(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    /* best effort */
  } finally {
    closeSync(fd);
  }
}

export class FileWriter {
  private worker: Worker | undefined;
  private readonly slots: Int32Array;
  /** Free slots, the lowest last. */
  private readonly free: number[];
  private nextId = 0;
  /** By id, in the order they were asked for. */
  private readonly jobs = new Map<number, Job>();
  private checkScheduled = false;
  private closing = false;
  private readonly syncDir: boolean;

  constructor(
    private readonly dir: string,
    options: FileWriterOptions = {},
  ) {
    this.syncDir = options.syncDir ?? true;
    const n = options.slots ?? SLOTS;
    this.slots = new Int32Array(new SharedArrayBuffer(n * 4));
    this.free = Array.from({ length: n }, (_, i) => n - 1 - i);
  }

  /**
   * Writes `text` to a hidden temp file beside `path` (in this writer's directory) and fsyncs it off the
   * main thread; with `hold`, also gives the file now at `path` a second, hidden name first, so a
   * rename over it does not free its inode (on ext4, journal work of 0.5 ms on average and several at
   * the tail), and passes that name to `install` to drop later (releaseOld). Once the temp file is
   * durable, `install(tmp, held)` runs synchronously on the main thread; the directory is fsynced after
   * it (shared with the installs that ran beside it), and the promise settles with its result. The
   * temp file is the caller's from then on: install it, or remove it.
   */
  write<T>(
    path: string,
    text: string,
    hold: boolean,
    install: (tmp: string, held: string | null) => T,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const slot = this.free.pop() ?? -1;
      if (slot >= 0) Atomics.store(this.slots, slot, PENDING);
      const job: Job = {
        id: this.nextId++,
        slot,
        tmp: hiddenName(path, 'tmp'),
        held: hold ? hiddenName(path, 'old') : null,
        install,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      this.jobs.set(job.id, job);
      const worker = this.worker ?? this.start();
      if (this.jobs.size === 1) worker.ref();
      worker.postMessage({ id: job.id, slot, tmp: job.tmp, text, path, hold: job.held });
      if (!this.checkScheduled) {
        this.checkScheduled = true;
        setImmediate(() => {
          this.checkScheduled = false;
          this.finish();
        });
      }
    });
  }

  /** Stops the thread once the writes in flight have finished (a later write starts a new one). */
  close(): void {
    this.closing = true;
    if (this.jobs.size === 0) this.stop();
  }

  /** Stops the thread when no write is in flight (an idle project); the next write starts a new one. */
  letGo(): boolean {
    if (!this.worker || this.jobs.size > 0) return false;
    this.stop();
    return true;
  }

  /**
   * Starts the thread now rather than on the first write (the board does when it starts, so the hub's
   * threads and their descriptors are there from the start).
   */
  start(): Worker {
    this.closing = false;
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./file-writer-thread.mjs', import.meta.url), {
      workerData: { slots: this.slots.buffer, DONE, FAILED },
      // The parent's flags (--test, --import tsx, --inspect …) are not this thread's business.
      execArgv: [],
    });
    worker.unref();
    worker.on(
      'message',
      (m: { id: number; error?: { message: string; code?: string; syscall?: string } }) => {
        const job = this.jobs.get(m.id);
        if (!job) return; // Already installed: its slot said it was done.
        if (m.error) job.error = Object.assign(new Error(m.error.message), m.error);
        else job.reported = true;
        this.finish();
      },
    );
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Its jobs will never be reported: fail them (their temp files may be left, hidden, like a crash's).
      for (const job of [...this.jobs.values()]) {
        this.release(job);
        releaseOld(job.held);
        job.reject(err);
      }
    };
    worker.on('error', fail);
    worker.once('exit', () => fail(new Error('the file writer thread stopped')));
    this.worker = worker;
    return worker;
  }

  private stop(): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }

  private release(job: Job): void {
    this.jobs.delete(job.id);
    if (job.slot >= 0) this.free.push(job.slot);
    if (this.jobs.size === 0) {
      if (this.closing) this.stop();
      else this.worker?.unref();
    }
  }

  /**
   * Installs every write whose temp file is durable (its slot or its message says so), fsyncs the
   * directory once for all of them, then settles them; a failure waits for its message, which carries
   * the error.
   */
  private finish(): void {
    const ready: Job[] = [];
    for (const job of this.jobs.values()) {
      if (job.reported || job.error || (job.slot >= 0 && Atomics.load(this.slots, job.slot) === DONE))
        ready.push(job);
    }
    if (ready.length === 0) return;
    const settled: [Job, boolean, unknown][] = [];
    for (const job of ready) {
      this.release(job);
      if (job.error) {
        releaseOld(job.held);
        settled.push([job, false, job.error]);
        continue;
      }
      try {
        settled.push([job, true, job.install(job.tmp, job.held)]);
      } catch (err) {
        settled.push([job, false, err]);
      }
    }
    if (this.syncDir && settled.some(([, ok]) => ok)) fsyncDir(this.dir);
    for (const [job, ok, value] of settled) (ok ? job.resolve : job.reject)(value);
  }
}
