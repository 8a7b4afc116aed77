// One job at a time per key, in arrival order, across awaits: the in-process lock for read-modify-write
// sequences that leave the event loop in the middle (a file written and fsynced on libuv's threadpool).
// Keys with nothing queued are forgotten, so the map holds only keys with work in flight.

export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `job` after every earlier job of the same key has settled (whether it succeeded or not). */
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const result = prev.then(job);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a job queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
