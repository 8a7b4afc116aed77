// The extraction helper threads of a process, shared by every indexer in it. A helper's memory is mostly
// the grammars it has loaded and the WebAssembly memory parsing grew (tens of MB each); one set per
// project would hold ten copies of the same grammars in a hub serving ten repositories, while only one
// full pass runs at a time across them (pass-queue.ts) and the others' passes are a few saved files.
// Each indexer thread gets a lease: one MessagePort to every helper, over which it sends paths and gets
// extractions back (pool.ts). Helpers start with the first lease and stop when the last one ends, so a
// process whose projects have all let their indexers go holds no grammar at all.
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { startThread } from '../threads.ts';
import { WORKER_LIMITS } from './pool.ts';

/** Sent to a helper thread: a port to serve one indexer's requests on. */
export interface HelperPortMessage {
  type: 'port';
  port: MessagePort;
}

export interface HelperLease {
  /** One port per helper, in the helpers' order (the first takes the rarer languages). Hand them to one indexer. */
  ports: MessagePort[];
  /** The indexer is gone; after the last lease ends the helpers stop. Idempotent. */
  end(): void;
}

/** Default: one helper per core beyond the first, at most 3. */
export const defaultHelperCount = () => Math.min(3, availableParallelism() - 1);

export class ExtractHelpers {
  private readonly threads: (Worker | undefined)[];
  private leases = 0;
  private closed = false;

  constructor(readonly count = defaultHelperCount()) {
    this.threads = Array.from({ length: Math.max(0, count) }, () => undefined);
  }

  /** Helper threads running now. */
  get running(): number {
    return this.threads.filter((t) => t !== undefined).length;
  }

  /** Indexers holding ports now. */
  get leased(): number {
    return this.leases;
  }

  /** Ports to every helper (started if need be) for one indexer thread; transfer them to it. */
  lease(): HelperLease {
    if (this.closed || this.threads.length === 0) return { ports: [], end: () => {} };
    const ports: MessagePort[] = [];
    for (let i = 0; i < this.threads.length; i++) {
      const thread = this.threads[i] ?? this.start(i);
      const { port1, port2 } = new MessageChannel();
      thread.postMessage({ type: 'port', port: port1 } satisfies HelperPortMessage, [port1]);
      ports.push(port2);
    }
    this.leases++;
    let ended = false;
    return {
      ports,
      end: () => {
        if (ended) return;
        ended = true;
        this.leases--;
        if (this.leases === 0) this.stopAll();
      },
    };
  }

  private start(slot: number): Worker {
    const w = startThread(new URL('./extract-worker.ts', import.meta.url), {
      execArgv: [],
      resourceLimits: WORKER_LIMITS,
    });
    // A helper's ports keep it busy while an indexer has work out; on its own it holds nothing open.
    w.unref();
    w.on('error', () => {
      // Its ports close with it: the indexers fail what they had out and go on with the other helpers.
    });
    w.on('exit', () => {
      if (this.threads[slot] === w) this.threads[slot] = undefined;
    });
    this.threads[slot] = w;
    return w;
  }

  private stopAll(): void {
    for (let i = 0; i < this.threads.length; i++) {
      const w = this.threads[i];
      this.threads[i] = undefined;
      void w?.terminate();
    }
  }

  /** Stops every helper (an indexer with ports to them fails what it had out, then extracts itself). */
  async close(): Promise<void> {
    this.closed = true;
    const all = this.threads.filter((t): t is Worker => t !== undefined);
    this.threads.fill(undefined);
    await Promise.all(all.map((w) => w.terminate()));
  }
}
