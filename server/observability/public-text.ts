// What a caller may read of a log line. SECURITY.md promises that stacks, absolute paths and SQL go only
// to $COS_STATE_DIR/.mcp.log; log lines are also kept in log_events for cos_log_query, the timeline and
// the live stream, so the text kept there passes through here first (and again when read, for rows an
// older hub stored). Paths inside the repository become repository-relative, the state directory
// `$COS_STATE_DIR`, any other path of this machine its last segment; URL paths (`/api/…`) stay.
import { readdirSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';

export interface PublicTextRoots {
  repo: string;
  stateDir: string;
}

/** `/x/y` or `file:///x/y`, not preceded by anything that makes it part of a word, a URL or a relative path. */
const PATH = /(?:file:\/\/|(?<![\w.~\-/:@]))(\/[^\s'"`<>()[\]{},;]+)/g;
/** An SQL statement (upper-case keywords, as the hub writes them) to the end of its line. */
const SQL =
  /\b(?:SELECT\b[^\n]*?\bFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM|CREATE\s+(?:UNIQUE\s+|VIRTUAL\s+)?(?:TABLE|INDEX|TRIGGER)|DROP\s+(?:TABLE|INDEX|TRIGGER)|ALTER\s+TABLE|PRAGMA\s+\w+)\b[^\n]*/g;
/** A stack frame line. */
const FRAME = /\n\s*at\s[^\n]*/g;

let rootEntries: Set<string> | undefined;

/** The names in `/`: an absolute path of this machine begins with one of them; `/api/…` does not. */
function machineRoots(): Set<string> {
  if (!rootEntries) {
    try {
      rootEntries = new Set(readdirSync('/'));
    } catch {
      rootEntries = new Set();
    }
  }
  return rootEntries;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export class PublicText {
  /** [prefix, what it becomes], longest prefix first. */
  private readonly prefixes: [string, string][];

  constructor(roots: PublicTextRoots) {
    const pairs: [string, string][] = [];
    for (const dir of new Set([roots.stateDir, real(roots.stateDir)])) pairs.push([dir, '$COS_STATE_DIR']);
    for (const dir of new Set([roots.repo, real(roots.repo)])) pairs.push([dir, '.']);
    this.prefixes = pairs.sort((a, b) => b[0].length - a[0].length);
  }

  /** `text` without stack frames, SQL statements or absolute paths of this machine. */
  scrub(text: string): string {
    return text
      .replace(FRAME, '')
      .replace(SQL, '(SQL left out)')
      .replace(PATH, (whole, path: string) => this.path(path) ?? whole);
  }

  private path(path: string): string | undefined {
    for (const [prefix, name] of this.prefixes) {
      if (path === prefix) return name;
      if (path.startsWith(`${prefix}/`)) {
        const rest = path.slice(prefix.length + 1);
        return name === '.' ? rest : `${name}/${rest}`;
      }
    }
    const first = path.split('/')[1] ?? '';
    if (!machineRoots().has(first)) return undefined;
    return `…/${basename(path)}`;
  }
}
