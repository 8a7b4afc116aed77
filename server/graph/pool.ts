// Extraction on helper threads. A helper reads a file, hashes it, extracts it and serializes the
// result; only paths go in and strings come back. Parsing is CPU-bound and independent per file;
// everything after it stays on the indexer thread, which writes one batch while the helpers extract
// the next two, and resolves; the first helper writes the resolved edges of a large pass
// (edgeWriter). Without helpers (one core), the indexer thread extracts and writes itself.
import type { MessagePort } from 'node:worker_threads';
import type { FileIdentity } from '../db/open.ts';
import { extractJob } from './extract-job.ts';
import type { EdgeBatch } from './store.ts';
import type { FileFacts, GraphNode, Language } from './types.ts';

/** Languages any helper takes; the rarer ones all go to the first helper, so each grammar loads once. */
const SHARED: ReadonlySet<Language> = new Set([
  'typescript',
  'tsx',
  'javascript',
  'python',
  'markdown',
  'json',
  'toml',
  'text',
]);

/**
 * Heap limits of the graph's threads. A small young generation: their garbage is short-lived parse
 * output, and V8's default semi-spaces cost tens of MB per isolate in resident memory for little
 * speed. An old generation capped just under 2 GB: below that size V8 (Node 20) lets the heap grow to
 * about twice what survived the last full collection before the next one, instead of four times.
 * Measured on a cold index of 5,300 files: the indexer's heap peaked at 88 MB with the cap at 2047 MB
 * and at 121 MB with it at 2049 MB, for 45 MB live. Its model of a repository of that size is a few
 * percent of the cap.
 */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 2047 };

/** A file to extract. */
export interface ExtractJob {
  /** Repo-relative. */
  path: string;
  language: Language;
  /** Bytes on disk when the walk saw it: only orders the work. */
  size: number;
  /** The content hash the graph already has: a file that still hashes to it is not extracted again. */
  known?: string;
}

/** What the indexer keeps of an extraction (everything but the references). */
export interface ExtractModel {
  nodes: GraphNode[];
  meta: Omit<FileFacts, 'refs'>;
}

export type ExtractOutcome =
  /** The file could not be read (deleted or unreadable since the walk). */
  | { status: 'unreadable' }
  /** Same content as `known`. */
  | { status: 'unchanged'; hash: string }
  | {
      status: 'extracted';
      hash: string;
      /** Extraction time. */
      ms: number;
      error?: string;
      /** JSON of an ExtractModel. */
      model: string;
      /** The FileFacts as stored in graph_files.facts (facts.ts). */
      facts: string;
    };

/** Extracts `jobs` under the repository `root`; the outcomes are in the jobs' order. */
export type Extractor = (root: string, jobs: ExtractJob[]) => Promise<ExtractOutcome[]>;

/** Extraction in the calling thread only (no helper: one core). */
export const extractHere: Extractor = async (root, jobs) => {
  const out: ExtractOutcome[] = [];
  for (const job of jobs) out.push(await extractJob(root, job));
  return out;
};

/** What a helper is sent, and answers: files to extract, or a batch of resolution's writes. */
export type HelperRequest =
  | { id: number; type?: undefined; root: string; jobs: ExtractJob[] }
  | { id: number; type: 'write'; db: HelperDb; batch: EdgeBatch };
export type HelperReply =
  | { id: number; outcomes: ExtractOutcome[] }
  | { id: number; written: true }
  | { id: number; error: string };

/** The database a helper writes to for an indexer: its path, and the file the hub opened there. */
export interface HelperDb {
  path: string;
  identity?: FileIdentity | undefined;
}

/**
 * Jobs go to a helper in chunks of at most this many bytes (fewer near the end of a batch, so the
 * batch's last chunks are short and no thread waits long for another's), two chunks ahead.
 */
const CHUNK_BYTES = 64 * 1024;
const CHUNK_FILES = 16;
const AHEAD = 2;

/**
 * The indexer thread's side of the extraction helpers: one port to each helper of the process
 * (helpers.ts leases them), over which chunks of jobs go out and outcomes come back.
 */
export class ExtractPool {
  private readonly helpers: MessagePort[] = [];
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { helper: MessagePort; resolve: (r: HelperReply) => void; reject: (e: Error) => void }
  >();

  /** `ports`: one per helper, in the helpers' order; none means this thread extracts everything itself. */
  constructor(ports: readonly MessagePort[] = []) {
    for (const port of ports) {
      port.on('message', (m: HelperReply) => {
        this.waiting.get(m.id)?.resolve(m);
        this.waiting.delete(m.id);
        this.settle(port);
      });
      port.on('close', () => {
        // The helper stopped (or the port was let go): later batches go to the helpers that are left,
        // or to this thread.
        const k = this.helpers.indexOf(port);
        if (k !== -1) this.helpers.splice(k, 1);
        for (const [id, p] of this.waiting) {
          if (p.helper !== port) continue;
          this.waiting.delete(id);
          p.reject(new Error('an extraction helper exited'));
        }
      });
      port.unref();
      this.helpers.push(port);
    }
  }

  /**
   * With helpers, this thread extracts nothing: it never loads a grammar or grows a WebAssembly
   * memory of its own, and it is free to write the previous batch (the indexer hands out batch N+1
   * before it writes batch N). The jobs are queued largest first; each helper takes chunks from the
   * queue, two ahead so it never waits for the next. Files of the rarer languages all go to the
   * first helper: every grammar a thread loads costs it 10-30 MB. (Extracting here too, between
   * writes, measured no faster on 2 cores: see scripts/bench/README.md.)
   */
  readonly extract: Extractor = async (root, jobs) => {
    if (this.helpers.length === 0) return extractHere(root, jobs);
    const out = new Array<ExtractOutcome>(jobs.length);
    const bySize = (a: number, b: number) => jobs[b]!.size - jobs[a]!.size;
    const shared: number[] = [];
    const rare: number[] = [];
    for (let i = 0; i < jobs.length; i++) (SHARED.has(jobs[i]!.language) ? shared : rare).push(i);
    shared.sort(bySize);
    rare.sort(bySize);
    const first = this.helpers[0]!;
    const workers = this.helpers.length;
    let sharedBytes = 0;
    for (const i of shared) sharedBytes += jobs[i]!.size;

    let failure: Error | undefined;
    const inFlight = new Set<Promise<void>>();
    const feed = (w: MessagePort) => {
      const queue = w === first && rare.length ? rare : shared;
      if (failure || queue.length === 0) return;
      const take: number[] = [];
      let bytes = 0;
      // A share of what is left, so the end of the batch is split finely between the threads.
      const budget = queue === shared ? Math.min(CHUNK_BYTES, sharedBytes / (2 * workers)) : CHUNK_BYTES;
      while (queue.length && take.length < CHUNK_FILES && (take.length === 0 || bytes < budget)) {
        const i = queue.shift()!;
        take.push(i);
        bytes += jobs[i]!.size;
      }
      if (queue === shared) sharedBytes -= bytes;
      const id = this.nextId++;
      const reply = new Promise<HelperReply>((resolve, reject) => {
        this.waiting.set(id, { helper: w, resolve, reject });
        // An idle helper does not keep the process alive; one with work out does.
        w.ref();
        w.postMessage({ id, root, jobs: take.map((i) => jobs[i]!) } satisfies HelperRequest);
      });
      const done: Promise<void> = reply.then(
        (r) => {
          inFlight.delete(done);
          if (!('outcomes' in r)) throw new Error('an extraction helper answered a request it was not sent');
          const { outcomes } = r;
          take.forEach((i, k) => {
            out[i] = outcomes[k]!;
          });
          feed(w);
        },
        (err: Error) => {
          inFlight.delete(done);
          failure ??= err;
        },
      );
      inFlight.add(done);
    };
    for (const w of this.helpers) for (let k = 0; k < AHEAD; k++) feed(w);
    while (inFlight.size && !failure) await Promise.race(inFlight);
    if (failure) throw failure;
    return out;
  };

  /**
   * Writes resolution's batches to `db` on the first helper, which idles while the indexer resolves
   * (helpers write nothing else); undefined without helpers. Batches are written in the order given.
   */
  edgeWriter(db: HelperDb): ((batch: EdgeBatch) => Promise<void>) | undefined {
    if (this.helpers.length === 0) return undefined;
    return (batch) => {
      const helper = this.helpers[0];
      if (!helper) return Promise.reject(new Error('no extraction helper is left to write'));
      const id = this.nextId++;
      return new Promise<HelperReply>((resolve, reject) => {
        this.waiting.set(id, { helper, resolve, reject });
        helper.ref();
        helper.postMessage({ id, type: 'write', db, batch } satisfies HelperRequest, [
          batch.edges.buffer as ArrayBuffer,
        ]);
      }).then((r) => {
        if ('error' in r) throw new Error(`writing resolved edges failed: ${r.error}`);
      });
    };
  }

  private settle(w: MessagePort): void {
    for (const p of this.waiting.values()) if (p.helper === w) return;
    w.unref();
  }

  /** Lets go of the helpers (they are the process's: they go on serving other indexers). */
  close(): void {
    for (const port of this.helpers.splice(0)) port.close();
  }
}
