// Small helpers shared by the benchmark scripts.
import { readdirSync, readFileSync } from 'node:fs';
import { type Agent, request } from 'node:http';

/**
 * POSTs a JSON text on a keep-alive `agent`: the round trip (to the last byte, before the answer is
 * parsed), the status and the answer (null when it is not JSON).
 */
export function postJson(
  url: string | URL,
  agent: Agent,
  text: string,
): Promise<{ ms: number; status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (out += c));
        res.on('end', () => {
          const ms = performance.now() - started;
          let json: unknown = null;
          try {
            json = JSON.parse(out);
          } catch {
            // Not JSON: the status says enough.
          }
          resolve({ ms, status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

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

/** Clock ticks a second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** /proc/<pid>/stat's fields after the command: [ppid, utime, stime, cutime, cstime], or null if gone. */
function procStat(pid: number): { ppid: number; own: number; reaped: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command is in parentheses and may hold spaces: the fields start after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (i: number) => Number(f[i]);
  return { ppid: n(1), own: n(11) + n(12), reaped: n(13) + n(14) };
}

/**
 * CPU seconds used so far by the processes `pids` (all their threads) and, with `children`, by their
 * children too: the live ones and the ones they reaped (PostgreSQL's postmaster and its backends).
 * Linux only; 0 for a process that is gone.
 */
export function cpuSeconds(pids: readonly number[], children = false): number {
  const roots = new Set(pids);
  let ticks = 0;
  for (const pid of pids) {
    const s = procStat(pid);
    if (s) ticks += s.own + (children ? s.reaped : 0);
  }
  if (children)
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const s = procStat(Number(name));
      if (s && roots.has(s.ppid)) ticks += s.own;
    }
  return ticks / TICKS;
}
