// `git diff` / `git show` patch text → files, hunks and the changed line ranges. Renames (`-M`), binary
// files, mode-only changes and quoted names are read from the headers git writes, so a file whose patch
// has no `---`/`+++` lines (a pure rename, a binary) is still listed.

export type FileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface Hunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  /** What git prints after the second `@@` (the enclosing function, when it finds one). */
  section: string;
  /** The hunk's lines as git prints them: first character ' ', '+', '-' or '\' (no newline at end). */
  lines: string[];
}

export interface FileDiff {
  path: string;
  /** The path before a rename; null otherwise. */
  old_path: string | null;
  status: FileStatus;
  binary: boolean;
  additions: number;
  deletions: number;
  /** max(removed, added) over each run of changed lines: how much of the file moved. */
  lines_changed: number;
  /** Changed line ranges on the side that exists (new side; old side for a deleted file). */
  ranges: [number, number][];
  hunks: Hunk[];
}

export interface ParseOptions {
  /** Keep each hunk's lines (the Review page, cos_task_changes); false keeps only the ranges. */
  lines?: boolean;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

export function parseDiff(text: string, options: ParseOptions = {}): FileDiff[] {
  const files: FileDiff[] = [];
  let cur: FileDiff | undefined;
  let hunk: Hunk | undefined;
  let oldLine = 0;
  let newLine = 0;
  // The run of changed lines being read: where it starts on each side and how much it removed/added.
  let run: { at: number; oldAt: number; del: number; add: number } | null = null;
  let headerOld: string | null = null;

  const closeRun = () => {
    if (!cur || !run) return;
    cur.lines_changed += Math.max(run.del, run.add);
    if (cur.status === 'deleted') cur.ranges.push([run.oldAt, run.oldAt + Math.max(run.del, 1) - 1]);
    else if (run.add > 0) cur.ranges.push([run.at, run.at + run.add - 1]);
    // A pure deletion sits between two lines: the symbol around the next line lost something.
    else cur.ranges.push([Math.max(1, run.at), Math.max(1, run.at)]);
    run = null;
  };
  const finishFile = () => {
    closeRun();
    hunk = undefined;
    if (cur && cur.path !== '') files.push(cur);
    cur = undefined;
  };

  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      finishFile();
      const [a, b] = headerPaths(line.slice('diff --git '.length));
      headerOld = a;
      cur = {
        path: b ?? a ?? '',
        old_path: null,
        status: 'modified',
        binary: false,
        additions: 0,
        deletions: 0,
        lines_changed: 0,
        ranges: [],
        hunks: [],
      };
      continue;
    }
    if (!cur) continue;
    if (hunk) {
      const c = line[0];
      if (c === '+' || c === '-' || c === ' ' || c === '\\') {
        if (options.lines) hunk.lines.push(line);
        if (c === '+') {
          run ??= { at: newLine, oldAt: oldLine, del: 0, add: 0 };
          run.add++;
          cur.additions++;
          newLine++;
        } else if (c === '-') {
          run ??= { at: newLine, oldAt: oldLine, del: 0, add: 0 };
          run.del++;
          cur.deletions++;
          oldLine++;
        } else if (c === ' ') {
          closeRun();
          oldLine++;
          newLine++;
        }
        continue;
      }
      if (line === '') continue;
    }
    const m = HUNK.exec(line);
    if (m) {
      closeRun();
      hunk = {
        old_start: Number(m[1]),
        old_lines: m[2] === undefined ? 1 : Number(m[2]),
        new_start: Number(m[3]),
        new_lines: m[4] === undefined ? 1 : Number(m[4]),
        section: m[5] ?? '',
        lines: [],
      };
      cur.hunks.push(hunk);
      oldLine = hunk.old_start;
      newLine = hunk.new_start;
      // A hunk that adds to an empty side starts "at line 0": the first added line is line 1.
      if (hunk.old_lines === 0 && oldLine === 0) oldLine = 1;
      if (hunk.new_lines === 0 && newLine === 0) newLine = 1;
      continue;
    }
    if (line.startsWith('new file mode')) cur.status = 'added';
    else if (line.startsWith('deleted file mode')) {
      cur.status = 'deleted';
      if (headerOld) cur.path = headerOld;
    } else if (line.startsWith('rename from ')) {
      cur.status = 'renamed';
      cur.old_path = unquote(line.slice('rename from '.length));
    } else if (line.startsWith('rename to ')) cur.path = unquote(line.slice('rename to '.length));
    else if (line.startsWith('--- ')) {
      if (line === '--- /dev/null') cur.status = 'added';
      else if (cur.status !== 'renamed') headerOld = stripSide(unquote(line.slice(4)), 'a/');
    } else if (line.startsWith('+++ ')) {
      if (line === '+++ /dev/null') {
        cur.status = 'deleted';
        cur.path = headerOld ?? cur.path;
      } else if (cur.status !== 'renamed') cur.path = stripSide(unquote(line.slice(4)), 'b/');
    } else if (line.startsWith('Binary files ')) {
      cur.binary = true;
      if (/^Binary files \/dev\/null and /.test(line)) cur.status = 'added';
      else if (/ and \/dev\/null differ$/.test(line)) {
        cur.status = 'deleted';
        cur.path = headerOld ?? cur.path;
      }
    }
  }
  finishFile();
  return files;
}

/** `a/x b/x` from a `diff --git` line; when both sides are one path the split is unambiguous. */
function headerPaths(rest: string): [string | null, string | null] {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    const a = stripSide(unquote(rest.slice(0, end + 1)), 'a/');
    const b = rest.slice(end + 2);
    return [a, stripSide(unquote(b), 'b/')];
  }
  const quoted = rest.indexOf(' "b/');
  if (quoted !== -1)
    return [stripSide(rest.slice(0, quoted), 'a/'), stripSide(unquote(rest.slice(quoted + 1)), 'b/')];
  // Unquoted: `a/P b/P`, where P may hold spaces; the same P on both sides is the usual case.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(2, half) === rest.slice(half + 3) && rest[half] === ' ')
    return [rest.slice(2, half), rest.slice(half + 3)];
  const sep = rest.indexOf(' b/');
  return sep === -1 ? [null, null] : [stripSide(rest.slice(0, sep), 'a/'), rest.slice(sep + 3)];
}

function closingQuote(s: string): number {
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
  }
  return s.length - 1;
}

const stripSide = (p: string, side: 'a/' | 'b/') => (p.startsWith(side) ? p.slice(2) : p);

/** git's C-style quoting of odd names (`"a\tb"`, octal escapes for bytes) back to the name. */
export function unquote(p: string): string {
  const s = p.replace(/\t$/, '');
  if (!s.startsWith('"') || !s.endsWith('"')) return s;
  const bytes: number[] = [];
  const body = s.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
