// Small helpers shared by the benchmark scripts.

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
