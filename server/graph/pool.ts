// Extraction across threads: the calling thread extracts part of each batch itself while helper
// threads extract the rest. Parsing is CPU-bound and independent per file; everything after it
// (writes, resolution) stays on the indexer thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { extractFile } from './extract/index.ts';
import type { Extraction, Language } from './types.ts';

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
 * A small young generation for the graph's threads: their garbage is short-lived parse output, and
 * V8's default semi-spaces cost tens of MB per isolate in resident memory for little speed.
 */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

export interface ExtractItem {
  path: string;
  language: Language;
  text: string;
}

export interface ExtractReply {
  id: number;
  results: { ex: Extraction; ms: number }[];
}

export type ExtractMany = (items: ExtractItem[]) => Promise<{ ex: Extraction; ms: number }[]>;

/** Extraction in the calling thread only. */
export const extractHere: ExtractMany = async (items) => {
  const out: { ex: Extraction; ms: number }[] = [];
  for (const it of items) {
    const t0 = performance.now();
    try {
      out.push({ ex: await extractFile(it.path, it.language, it.text), ms: performance.now() - t0 });
    } catch (err) {
      out.push({
        ex: {
          nodes: [],
          facts: { refs: [], bindings: [], reexports: [] },
          error: `extraction failed: ${(err as Error).message}`,
        },
        ms: performance.now() - t0,
      });
    }
  }
  return out;
};

export class ExtractPool {
  private readonly helpers: Worker[] = [];
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (r: ExtractReply) => void; reject: (e: Error) => void }
  >();

  /** `helpers` extra threads (default: one per core beyond the first, at most 3). */
  constructor(helpers = Math.min(3, availableParallelism() - 1)) {
    for (let i = 0; i < helpers; i++) {
      const w = new Worker(new URL('./worker-bootstrap.cjs', import.meta.url), {
        workerData: { entry: 'extract-worker' },
        execArgv: [],
        resourceLimits: WORKER_LIMITS,
      });
      w.on('message', (m: ExtractReply) => {
        this.waiting.get(m.id)?.resolve(m);
        this.waiting.delete(m.id);
      });
      w.on('error', (err) => {
        for (const [, p] of this.waiting) p.reject(err);
        this.waiting.clear();
      });
      w.unref();
      this.helpers.push(w);
    }
  }

  /** Splits the batch by size: one share per helper and one for this thread; results in input order. */
  readonly extract: ExtractMany = async (items) => {
    if (this.helpers.length === 0 || items.length < 4) return extractHere(items);
    const lanes = this.helpers.length + 1;
    const shares: ExtractItem[][] = Array.from({ length: lanes }, () => []);
    const load = new Array<number>(lanes).fill(0);
    const order: [number, number][] = [];
    // Largest first into the lightest lane keeps the lanes' bytes close.
    const sorted = items.map((it, i) => [it, i] as const).sort((a, b) => b[0].text.length - a[0].text.length);
    for (const [it, i] of sorted) {
      let lane = 0;
      // Helpers take only the common languages: every grammar a thread loads costs it 10-30 MB, so the
      // rare ones (C, shell, …) load once, here.
      if (SHARED.has(it.language)) for (let l = 1; l < lanes; l++) if (load[l]! < load[lane]!) lane = l;
      load[lane]! += it.text.length;
      order[i] = [lane, shares[lane]!.length];
      shares[lane]!.push(it);
    }
    const remote = this.helpers.map((w, h) => {
      const id = this.nextId++;
      return new Promise<ExtractReply>((resolve, reject) => {
        this.waiting.set(id, { resolve, reject });
        w.postMessage({ id, items: shares[h + 1] });
      });
    });
    const local = await extractHere(shares[0]!);
    const replies = await Promise.all(remote);
    const byLane = [local, ...replies.map((r) => r.results)];
    return order.map(([lane, k]) => byLane[lane]![k]!);
  };

  async close(): Promise<void> {
    await Promise.all(this.helpers.map((w) => w.terminate()));
    this.helpers.length = 0;
  }
}
