// Reads a transcript from where the last read stopped, a bounded step at a time, so a long transcript
// never holds the thread that answers hooks: JSONL from the byte after the last whole line (a partial
// last line waits for the rest), a file replaced or truncated since (rotation) from its start again,
// and a Gemini CLI recording (one JSON document, rewritten as it grows) whole, when it changed. Entries
// are keyed, so reading a line twice never counts it twice.
import { open } from 'node:fs/promises';
import type { SourceRow } from './store.ts';
import { claudeUsage } from './transcripts/claude.ts';
import { type CodexState, codexUsage, newCodexState } from './transcripts/codex.ts';
import { geminiDocumentUsage, geminiMessageUsage } from './transcripts/gemini.ts';
import { asObject, str, type UsageEntry } from './transcripts/usage.ts';

/** Bytes one step reads: about 5 ms of parsing, after which the thread is given back. */
export const STEP_BYTES = 1024 * 1024;
/** A line longer than this is skipped (Claude Code writes large tool results; none carries usage). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;
/** A Gemini CLI recording is read whole; larger than this it is not read. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

export interface Position {
  dev: number;
  ino: number;
  offset: number;
  size: number;
  mtime_ms: number;
  /** The file's first HEAD_BYTES bytes (hex), to tell a file rewritten in place from one that grew. */
  head: string;
  state: string | null;
  error: string | null;
}

/** Bytes compared at the start of a file to see it was rewritten (a new session's header differs). */
export const HEAD_BYTES = 64;

export interface Step {
  entries: UsageEntry[];
  position: Position;
  /** Nothing more to read now (the end of the file, or a partial last line). */
  done: boolean;
  /** Started again from 0: the file was replaced or truncated since the last read. */
  rotated: boolean;
  skippedLines: number;
}

type LineParser = (line: Record<string, unknown>) => UsageEntry | null;

// Lines without these words carry no usage: they are not parsed at all (most of a transcript's bytes
// are tool results and file contents).
const NEEDLES: Record<string, readonly string[]> = {
  'claude-code': ['"usage"'],
  codex: ['token_count', 'turn_context', 'session_meta'],
  gemini: ['"tokens"', 'sessionId'],
};

interface ParserState {
  codex?: CodexState;
  session?: string | null;
}

function parserFor(client: string, state: ParserState, source: string): LineParser {
  if (client === 'codex') {
    state.codex ??= newCodexState();
    const s = state.codex;
    return (line) => codexUsage(line, s, source);
  }
  if (client === 'gemini')
    return (line) => {
      state.session = str(line.sessionId) ?? state.session ?? null;
      return line.type === 'gemini' || asObject(line.tokens)
        ? geminiMessageUsage(line, state.session ?? source)
        : null;
    };
  return claudeUsage;
}

function parseState(text: string | null): ParserState {
  if (!text) return {};
  try {
    return (asObject(JSON.parse(text)) ?? {}) as ParserState;
  } catch {
    return {};
  }
}

/** One step of reading `src` (its path a checked real path) from its recorded position. */
export async function readStep(src: SourceRow, stepBytes = STEP_BYTES): Promise<Step> {
  const fh = await open(src.path, 'r');
  try {
    const st = await fh.stat();
    const headBuf = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
    await fh.read(headBuf, 0, headBuf.length, 0);
    const head = headBuf.toString('hex');
    const replaced = src.ino !== 0 && (st.ino !== src.ino || st.dev !== src.dev);
    // Truncated and written again (the same inode): shorter than what was read, or its start differs.
    const known = Math.min(head.length, src.head?.length ?? 0);
    const rewritten = src.offset > 0 && known > 0 && head.slice(0, known) !== src.head?.slice(0, known);
    const rotated = replaced || st.size < src.offset || rewritten;
    const base: Position = {
      dev: st.dev,
      ino: st.ino,
      offset: rotated ? 0 : src.offset,
      size: st.size,
      mtime_ms: Math.floor(st.mtimeMs),
      head,
      state: rotated ? null : src.state,
      error: null,
    };
    if (src.client === 'gemini' && src.path.endsWith('.json')) {
      const unchanged = !rotated && st.size === src.size && Math.floor(st.mtimeMs) === src.mtime_ms;
      if (unchanged)
        return { entries: [], position: { ...base, error: src.error }, done: true, rotated, skippedLines: 0 };
      return await readDocument(fh, st.size, base, src, rotated);
    }
    return await readLines(fh, st.size, base, src, rotated, stepBytes);
  } finally {
    await fh.close();
  }
}

async function readDocument(
  fh: Awaited<ReturnType<typeof open>>,
  size: number,
  base: Position,
  src: SourceRow,
  rotated: boolean,
): Promise<Step> {
  if (size > MAX_DOCUMENT_BYTES)
    return {
      entries: [],
      position: { ...base, error: `over ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB: not read` },
      done: true,
      rotated,
      skippedLines: 0,
    };
  const buf = Buffer.alloc(size);
  const { bytesRead } = await fh.read(buf, 0, size, 0);
  let doc: Record<string, unknown> | null = null;
  try {
    doc = asObject(JSON.parse(buf.subarray(0, bytesRead).toString('utf8')));
  } catch {
    doc = null;
  }
  // Caught mid-rewrite: keep the old position (size 0 makes the next read try again).
  if (doc === null)
    return {
      entries: [],
      position: { ...base, size: 0, mtime_ms: 0, error: 'not a whole JSON document yet; read again later' },
      done: true,
      rotated,
      skippedLines: 0,
    };
  return {
    entries: geminiDocumentUsage(doc, sourceName(src.path)),
    position: { ...base, offset: bytesRead },
    done: true,
    rotated,
    skippedLines: 0,
  };
}

async function readLines(
  fh: Awaited<ReturnType<typeof open>>,
  size: number,
  base: Position,
  src: SourceRow,
  rotated: boolean,
  stepBytes: number,
): Promise<Step> {
  let offset = base.offset;
  const state = parseState(base.state);
  const parse = parserFor(src.client, state, sourceName(src.path));
  const needles = NEEDLES[src.client] ?? NEEDLES['claude-code']!;
  const entries: UsageEntry[] = [];
  let skippedLines = 0;
  if (offset >= size) return { entries, position: base, done: true, rotated, skippedLines };
  let want = Math.min(stepBytes, size - offset);
  let buf = Buffer.alloc(want);
  let { bytesRead } = await fh.read(buf, 0, want, offset);
  let end = buf.lastIndexOf(10, bytesRead - 1);
  // One line longer than a step: read on to its end (up to MAX_LINE_BYTES), or skip it.
  while (end < 0 && offset + bytesRead < size) {
    if (bytesRead >= MAX_LINE_BYTES) {
      const skipTo = await nextNewline(fh, offset + bytesRead, size);
      if (skipTo === null) break;
      skippedLines++;
      return {
        entries,
        position: { ...base, offset: skipTo, state: JSON.stringify(state) },
        done: skipTo >= size,
        rotated,
        skippedLines,
      };
    }
    want = Math.min(bytesRead * 2, MAX_LINE_BYTES, size - offset);
    buf = Buffer.alloc(want);
    ({ bytesRead } = await fh.read(buf, 0, want, offset));
    end = buf.lastIndexOf(10, bytesRead - 1);
  }
  if (end < 0) return { entries, position: { ...base, offset }, done: true, rotated, skippedLines };
  // Read to the end of the file: what follows the last newline is a partial line that waits.
  const toEnd = offset + bytesRead >= size;
  const text = buf.subarray(0, end).toString('utf8');
  for (const line of text.split('\n')) {
    if (line.length === 0 || !needles.some((n) => line.includes(n))) continue;
    let obj: Record<string, unknown> | null;
    try {
      obj = asObject(JSON.parse(line));
    } catch {
      skippedLines++;
      continue;
    }
    const e = obj ? parse(obj) : null;
    if (e) entries.push(e);
  }
  offset += end + 1;
  return {
    entries,
    position: { ...base, offset, state: JSON.stringify(state) },
    done: toEnd,
    rotated,
    skippedLines,
  };
}

/** The byte after the next newline at or after `from`, or null when there is none yet. */
async function nextNewline(
  fh: Awaited<ReturnType<typeof open>>,
  from: number,
  size: number,
): Promise<number | null> {
  const buf = Buffer.alloc(STEP_BYTES);
  for (let at = from; at < size; at += STEP_BYTES) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(STEP_BYTES, size - at), at);
    const i = buf.subarray(0, bytesRead).indexOf(10);
    if (i >= 0) return at + i + 1;
  }
  return null;
}

/** A transcript's name without folders or extension (a session's id where a client names files so). */
function sourceName(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.replace(/\.jsonl?$/, '');
}
