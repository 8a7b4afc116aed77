// Small helpers shared by the benchmark scripts.
import { readFileSync } from 'node:fs';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(latenciesMs: number[]): { n: number; p50: number; p99: number } {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

export function table(headers: string[], rows: (string | number)[][]): string {
  const lines = [headers, headers.map(() => '---'), ...rows.map((r) => r.map(String))];
  return lines.map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/**
 * CPU time one thread has run, in µs: `/proc/<pid>/task/<tid>/schedstat` (nanoseconds; Linux only,
 * NaN elsewhere). The main thread's tid is the pid. Unlike wall time it barely moves when other
 * processes share the cores, which makes it the figure to compare between runs on a busy machine.
 */
export function threadCpuMicros(pid: number, tid = pid): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return Number.NaN;
  }
}
