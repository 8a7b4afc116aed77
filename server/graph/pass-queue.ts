// One full index pass at a time across every project a hub serves. A cold pass reads, parses and writes
// a whole repository; ten at once would each take ten times as long and hold ten indexers' memory at
// the peak. The others wait their turn here, first come first served, and say so in their freshness.
// Incremental passes (a few saved files) do not queue: they are small, and an agent waits on them.

export class PassQueue {
  private running: object | undefined;
  private readonly waiting: { owner: object; admit: () => void; cancel: (err: Error) => void }[] = [];

  /**
   * Resolves with a release function once `owner` may run its pass; the owner calls it when the pass
   * ends, whichever way. Rejects with `signal`'s reason when that aborts while waiting.
   */
  acquire(owner: object, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let released = false;
      const admit = () => {
        this.running = owner;
        resolve(() => {
          if (released) return;
          released = true;
          if (this.running === owner) this.running = undefined;
          this.next();
        });
      };
      const entry = { owner, admit, cancel: reject };
      this.waiting.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.waiting.indexOf(entry);
          if (i === -1) return;
          this.waiting.splice(i, 1);
          reject(signal.reason instanceof Error ? signal.reason : new Error('the index pass was cancelled'));
        },
        { once: true },
      );
      if (this.running === undefined) this.next();
    });
  }

  /** 0 while `owner`'s pass runs, 1 for the next in line and so on; undefined when it is neither. */
  position(owner: object): number | undefined {
    if (this.running === owner) return 0;
    const i = this.waiting.findIndex((w) => w.owner === owner);
    return i === -1 ? undefined : i + 1;
  }

  get length(): number {
    return this.waiting.length + (this.running === undefined ? 0 : 1);
  }

  private next(): void {
    if (this.running !== undefined) return;
    this.waiting.shift()?.admit();
  }
}
