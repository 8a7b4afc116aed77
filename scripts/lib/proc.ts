// What Linux's /proc says about a process and its threads, for the benchmarks' CPU figures. Unlike wall
import { readFileSync } from 'node:fs';
// time, a thread's CPU time barely moves when other processes share the cores.

/** A thread's time on a core and waiting for one (/proc/<pid>/task/<tid>/schedstat, ns), in ms; NaN off Linux. */
export function threadSchedstat(pid: number, tid = pid): { runMs: number; waitMs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
    return { runMs: Number(run) / 1e6, waitMs: Number(wait) / 1e6 };
  } catch {
    return { runMs: Number.NaN, waitMs: Number.NaN };
  }
}

/** utime + stime of a process (/proc/<pid>/stat) or one of its threads (/proc/<pid>/task/<tid>/stat), in ms (10 ms ticks). */
export function cpuMs(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
