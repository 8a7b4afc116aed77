// Source excerpts for graph answers. A node's file_path comes from the database, which a corrupted or
// hostile row could point anywhere: the real path (symlinks followed) must stay inside the repository.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';

export interface Excerpt {
  file_path: string;
  start_line: number;
  end_line: number;
  text: string;
  /** True when the node's span was longer than the lines returned. */
  cut: boolean;
}

const MAX_BYTES = 2_000_000;

/** Lines [start, end] of a repo file, at most `maxLines`; a reason string when it may not or cannot be read. */
export function readExcerpt(
  repo: string,
  filePath: string,
  start: number,
  end: number,
  maxLines: number,
): Excerpt | { unavailable: string } {
  let root: string;
  let real: string;
  try {
    root = realpathSync(repo);
    real = realpathSync(resolve(root, filePath));
  } catch {
    return { unavailable: 'the file is no longer on disk' };
  }
  if (real !== root && !real.startsWith(root + sep))
    return { unavailable: 'the path leads outside the repository' };
  const text = readText(real);
  if (text === undefined) return { unavailable: 'not a readable text file under 2 MB' };
  const lines = text.split('\n');
  const from = Math.max(1, Math.min(start, lines.length));
  const to = Math.max(from, Math.min(end, lines.length));
  const last = Math.min(to, from + maxLines - 1);
  return {
    file_path: filePath,
    start_line: from,
    end_line: last,
    text: lines.slice(from - 1, last).join('\n'),
    cut: last < to,
  };
}

/** The whole text of a file inside the repository, or undefined (outside, missing, binary, too big). */
export function readRepoFile(repo: string, filePath: string): string | undefined {
  try {
    const root = realpathSync(repo);
    const real = realpathSync(resolve(root, filePath));
    if (!real.startsWith(root + sep)) return undefined;
    return readText(real);
  } catch {
    return undefined;
  }
}

/** Lines of repository files, each read once per tool call (plans and checks revisit the same files). */
export class RepoLines {
  private readonly cache = new Map<string, string[] | null>();

  constructor(private readonly repo: string) {}

  /** null when the file cannot be read (gone, outside the repository, binary, too big). */
  get(path: string): string[] | null {
    let lines = this.cache.get(path);
    if (lines === undefined) {
      const text = readRepoFile(this.repo, path);
      lines = text === undefined ? null : text.split('\n');
      this.cache.set(path, lines);
    }
    return lines;
  }
}

function readText(real: string): string | undefined {
  try {
    const st = statSync(real);
    if (!st.isFile() || st.size > MAX_BYTES) return undefined;
    const buf = readFileSync(real);
    if (buf.includes(0)) return undefined;
    return buf.toString('utf8');
  } catch {
    return undefined;
  }
}
