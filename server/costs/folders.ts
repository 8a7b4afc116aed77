// The only files the hub reads usage from: each client's own transcript folder, as its real path, and
// only files of the kind that client writes there. A hook payload's transcript_path is a claim by
// whoever posted it; it is believed only when the file's real path (symlinks resolved) is inside one
// of these folders, so a forged path (`/etc/shadow`, `~/.claude/projects/../../.ssh/id_ed25519`, a
// symlink planted in the folder) gets nothing read from it.
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';

export type TranscriptClient = 'claude-code' | 'codex' | 'gemini';

export type TranscriptRoots = Readonly<Record<TranscriptClient, readonly string[]>>;

/**
 * Claude Code: the `projects` folder of each `$CLAUDE_CONFIG_DIR` (comma-separated, as ccusage takes
 * it) or `~/.claude/projects` and `~/.config/claude/projects`; Codex: `$CODEX_HOME/sessions` or
 * `~/.codex/sessions`; Gemini CLI: `~/.gemini/tmp`. (Both variables name the client's configuration
 * folder; the transcripts are in that subfolder, and nothing else there is read.)
 */
export function transcriptRoots(env: NodeJS.ProcessEnv): TranscriptRoots {
  const home = env.HOME?.trim() || homedir();
  const list = (v: string | undefined) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s) => resolve(s));
  const claude = list(env.CLAUDE_CONFIG_DIR);
  const codex = list(env.CODEX_HOME);
  return {
    'claude-code':
      claude.length > 0
        ? claude.map((d) => join(d, 'projects'))
        : [join(home, '.claude', 'projects'), join(home, '.config', 'claude', 'projects')],
    codex: (codex.length > 0 ? codex : [join(home, '.codex')]).map((d) => join(d, 'sessions')),
    gemini: [join(home, '.gemini', 'tmp')],
  };
}

const EXTENSIONS: Record<TranscriptClient, readonly string[]> = {
  'claude-code': ['.jsonl'],
  codex: ['.jsonl'],
  gemini: ['.json', '.jsonl'],
};

/** Largest transcript read (a bigger one is refused with that reason, never read in part). */
export const MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024;

export type TranscriptCheck =
  | { ok: true; real: string; client: TranscriptClient; size: number }
  | { ok: false; reason: string };

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * Whether `path` is a transcript the hub may read for `client` ('unknown': whichever client's folder
 * holds it): its real path inside that client's real folder, a regular file, the client's extension,
 * at most MAX_TRANSCRIPT_BYTES.
 */
export function checkTranscript(path: string, client: string, roots: TranscriptRoots): TranscriptCheck {
  if (path.length === 0 || path.length > 4096 || path.includes('\0') || !path.startsWith('/'))
    return { ok: false, reason: 'transcript_path must be an absolute path' };
  const real = realOrNull(path);
  if (real === null) return { ok: false, reason: 'the transcript does not exist (yet)' };
  const clients = (Object.keys(roots) as TranscriptClient[]).filter(
    (c) => client === 'unknown' || c === client,
  );
  for (const c of clients) {
    for (const root of roots[c]) {
      const base = realOrNull(root);
      if (base === null || !real.startsWith(base.endsWith(sep) ? base : base + sep)) continue;
      if (!EXTENSIONS[c].some((ext) => real.endsWith(ext)))
        return { ok: false, reason: `not a ${c} transcript (${EXTENSIONS[c].join(' or ')})` };
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(real);
      } catch {
        return { ok: false, reason: 'the transcript cannot be read' };
      }
      if (!st.isFile()) return { ok: false, reason: 'the transcript is not a regular file' };
      if (st.size > MAX_TRANSCRIPT_BYTES)
        return { ok: false, reason: `the transcript is over ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MB` };
      return { ok: true, real, client: c, size: st.size };
    }
  }
  return {
    ok: false,
    reason: `outside the ${client === 'unknown' ? "clients'" : `${client}'s`} transcript folder`,
  };
}
