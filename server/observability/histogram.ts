// A cumulative latency histogram with Prometheus' default buckets (seconds).
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class LatencyHistogram {
  readonly counts = new Array<number>(LATENCY_BUCKETS.length).fill(0);
  count = 0;
  sum = 0;

  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]!) {
        this.counts[i] = (this.counts[i] ?? 0) + 1;
        return;
      }
    }
  }

  /** Cumulative counts per bucket, as the exposition format wants them. */
  cumulative(): number[] {
    let running = 0;
    return this.counts.map((c) => {
      running += c;
      return running;
    });
  }
}
