// Task files: markdown with YAML front matter. People edit these by hand and merge them in git, so a
// rewrite by the hub changes only the lines of the known keys and known sections whose values changed;
// every other byte (unknown keys, comments, unknown sections, spacing) stays exactly as it was.
import { createHash } from 'node:crypto';
import { type Document, isMap, isScalar, parseDocument } from 'yaml';
import {
  type Actor,
  FIELD_ORDER,
  fileNameKey,
  isKind,
  isPriority,
  isStatus,
  parseTaskId,
  parseTaskKey,
  SECTION_KEYS,
  SECTION_NAMES,
  type SectionName,
  type TaskFields,
  type TaskSections,
  taskKey,
} from './model.ts';
import { cleanSection, decodeSection, encodeSection } from './section-text.ts';
import { yamlString } from './yaml-scalar.ts';

interface Span {
  start: number;
  end: number;
}

interface KeySpan extends Span {
  key: string;
}

interface SectionSpan {
  name: SectionName;
  /** Start of the heading line. */
  heading: number;
  /** First byte after the heading line. */
  contentStart: number;
  end: number;
}

export interface TaskDocument {
  fields: TaskFields;
  sections: TaskSections;
  /** The file's text as read; rewrites splice into it. */
  text: string;
  /** Front-matter keys the hub does not know, in file order (kept byte for byte). */
  unknownKeys: string[];
  /**
   * false when the file's `version` is another tool's (not a plain positive integer): the hub leaves that
   * line alone and keeps its own version of the task in the index (fields.version is then 1 here).
   */
  ownsVersion: boolean;
  /** Body sections the hub does not know, in file order (kept byte for byte). */
  unknownSections: string[];
  eol: string;
  /** Offsets of the front matter's inner text (between the `---` lines). */
  fm: Span;
  keys: KeySpan[];
  bodyStart: number;
  sectionSpans: SectionSpan[];
  /**
   * The fields as the file writes them, when `fields` shows a newer team record instead (a hub in a
   * team, server/board/team-board.ts): a rewrite compares with these, so the record's status reaches
   * the file.
   */
  fileFields?: TaskFields;
}

/** `notTask`: a markdown file with no front matter and no id in its name (a README): not a task at all. */
export type ParseResult = { ok: true; doc: TaskDocument } | { ok: false; reason: string; notTask?: true };

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * parseTaskFile with a memory of the last `size` texts it parsed: a write parses the same file and the
 * same new text twice (once to decide, once to commit), and a read often follows. Answers are frozen,
 * since every caller of one text shares them.
 */
export function parseCache(size = 64): (text: string, fileName: string) => ParseResult {
  const cache = new Map<string, ParseResult>();
  return (text, fileName) => {
    const key = `${fileName}\n${text}`;
    const hit = cache.get(key);
    if (hit !== undefined) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const result = deepFreeze(parseTaskFile(text, fileName));
    cache.set(key, result);
    if (cache.size > size) cache.delete(cache.keys().next().value as string);
    return result;
  };
}

export const contentHash = (text: string): string => createHash('sha1').update(text).digest('hex');

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]|$)/;
const FENCE = /^(```|~~~)/;
const HEADING = /^(#{1,2})[ \t]+(.*?)[ \t#]*$/;

/** Splits text into lines keeping each line's terminator, with their start offsets. */
function lines(text: string, from: number, to: number): { start: number; end: number; line: string }[] {
  const out: { start: number; end: number; line: string }[] = [];
  let i = from;
  while (i < to) {
    const nl = text.indexOf('\n', i);
    const end = nl === -1 || nl >= to ? to : nl + 1;
    out.push({ start: i, end, line: text.slice(i, end).replace(/\r?\n$/, '') });
    i = end;
  }
  return out;
}

/**
 * Parses a task file. `fileName` is the name inside the tasks directory; it may start with the task's id
 * (`TASK-046-slug.md`), which must then agree with the front matter's, and must when the front matter has
 * none. Reasons are written for the person who will fix the file.
 */
export function parseTaskFile(text: string, fileName: string): ParseResult {
  const fromName = fileNameKey(fileName);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const head = /^\uFEFF?---[ \t]*\r?\n/.exec(text);
  if (!head) {
    if (fromName === null)
      return { ok: false, notTask: true, reason: 'no front matter and no id in the name: not a task file' };
    return { ok: false, reason: 'the file must start with a "---" line opening the YAML front matter' };
  }
  const fmStart = head[0].length;
  const close = /^---[ \t]*(?:\r?\n|$)/m;
  const rest = text.slice(fmStart);
  const closeMatch = close.exec(rest);
  if (!closeMatch) return { ok: false, reason: 'the YAML front matter has no closing "---" line' };
  const fmEnd = fmStart + closeMatch.index;
  const bodyStart = fmEnd + closeMatch[0].length;
  const fmText = text.slice(fmStart, fmEnd);

  const yamlDoc = parseDocument(fmText, { uniqueKeys: true, prettyErrors: false });
  if (yamlDoc.errors.length > 0) {
    const first = yamlDoc.errors[0];
    return {
      ok: false,
      reason: `the YAML front matter does not parse: ${first?.message.split('\n')[0] ?? 'error'}`,
    };
  }
  if (!isMap(yamlDoc.contents))
    return { ok: false, reason: 'the YAML front matter must be a mapping of keys' };
  const data = yamlDoc.toJS() as Record<string, unknown>;

  const idOrError = taskIdentity(data.id, fromName);
  if (typeof idOrError === 'string') return { ok: false, reason: idOrError };
  const ownsVersion = isOwnVersion(yamlDoc);
  const fieldsOrError = normaliseFields(data, idOrError, ownsVersion);
  if (typeof fieldsOrError === 'string') return { ok: false, reason: fieldsOrError };

  const keys = keySpans(text, fmStart, fmEnd);
  const known = new Set<string>(FIELD_ORDER);
  if (!ownsVersion) known.delete('version');
  const unknownKeys = keys.filter((k) => !known.has(k.key)).map((k) => k.key);

  const { spans, unknown } = sectionSpans(text, bodyStart);
  const sections: TaskSections = { outcome: '', read_first: '', acceptance: '', work_log: '' };
  for (const s of spans) sections[SECTION_KEYS[s.name]] = decodeSection(text.slice(s.contentStart, s.end));

  return {
    ok: true,
    doc: {
      fields: fieldsOrError,
      sections,
      text,
      unknownKeys,
      ownsVersion,
      unknownSections: unknown,
      eol,
      fm: { start: fmStart, end: fmEnd },
      keys,
      bodyStart,
      sectionSpans: spans,
    },
  };
}

function scalarString(v: unknown): string | null | undefined {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  return undefined;
}

function stringList(v: unknown): string[] | undefined {
  if (v === null || v === undefined) return [];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  for (const item of items) {
    const s = scalarString(item);
    if (s === undefined) return undefined;
    if (s !== null && s !== '') out.push(s);
  }
  return out;
}

/**
 * The task's id: the front matter's `id` (kept as written when it is a key like `TASK-046`), else the
 * one the file name starts with. Both present must agree on the number.
 */
function taskIdentity(
  raw: unknown,
  fromName: { key: string; n: number } | null,
): { key: string; n: number } | string {
  if (raw === undefined || raw === null) {
    if (fromName !== null) return fromName;
    return 'the front matter has no id and the file name does not start with one; add a line like "id: TASK-12"';
  }
  const written = typeof raw === 'string' ? parseTaskKey(raw.trim()) : null;
  const n = written?.n ?? parseTaskId(raw);
  if (n === null) return `id "${String(raw)}" is not a task id like ${fromName?.key ?? 'TASK-12'}`;
  if (fromName !== null && fromName.n !== n)
    return `id ${written?.key ?? String(raw)} does not match the file name's ${fromName.key}`;
  // A bare number (`id: 46`) takes the spelling of the name when it has one.
  return written ?? (fromName?.n === n ? fromName : { key: taskKey(n), n });
}

/** Whether `version` is the hub's own counter: absent, or a plain positive integer (`version: 4`). */
function isOwnVersion(doc: Document): boolean {
  const node = doc.get('version', true);
  if (node === undefined || node === null) return true;
  if (!isScalar(node)) return false;
  if (node.value === null) return true;
  return (
    node.type === 'PLAIN' &&
    typeof node.value === 'number' &&
    /^[1-9][0-9]{0,15}$/.test(String(node.source ?? '')) &&
    Number.isSafeInteger(node.value)
  );
}

function normaliseFields(
  data: Record<string, unknown>,
  identity: { key: string; n: number },
  ownsVersion: boolean,
): TaskFields | string {
  const title = scalarString(data.title);
  if (title === undefined || title === null || title.trim() === '') return 'title is missing or empty';
  if (!isStatus(data.status))
    return `status "${String(data.status ?? '')}" is not one of icebox, emergency, in_progress, testing, complete, blocked, archive`;
  const kind = data.kind ?? 'feature';
  if (!isKind(kind))
    return `kind "${String(kind)}" is not one of feature, bug, chore, spike, docs, refactor, test, security`;
  const priorityRaw = data.priority ?? 'P2';
  const priority = typeof priorityRaw === 'string' ? priorityRaw.toUpperCase() : priorityRaw;
  if (!isPriority(priority)) return `priority "${String(priorityRaw)}" is not one of P0, P1, P2, P3`;
  const lists: Record<'labels' | 'depends_on' | 'blocked_by' | 'references', string[]> = {
    labels: [],
    depends_on: [],
    blocked_by: [],
    references: [],
  };
  for (const key of ['labels', 'depends_on', 'blocked_by', 'references'] as const) {
    const list = stringList(data[key]);
    if (list === undefined) return `${key} must be a list of plain values`;
    lists[key] = list;
  }
  const deps: string[] = [];
  for (const d of lists.depends_on) {
    const n = parseTaskId(d);
    if (n === null) return `depends_on entry "${d}" is not a task id like TASK-12`;
    // Kept as written when it is a key (`TASK-046`), so an unchanged list is never rewritten.
    deps.push(parseTaskKey(d.trim())?.key ?? taskKey(n));
  }
  const strings: Record<
    'appetite' | 'swimlane' | 'epic' | 'created' | 'started' | 'completed' | 'agent_session',
    string | null
  > = {
    appetite: null,
    swimlane: null,
    epic: null,
    created: null,
    started: null,
    completed: null,
    agent_session: null,
  };
  for (const key of Object.keys(strings) as (keyof typeof strings)[]) {
    const s = scalarString(data[key]);
    if (s === undefined) return `${key} must be a plain value, not a list or mapping`;
    strings[key] = s === '' ? null : s;
  }
  const version = ownsVersion && typeof data.version === 'number' ? data.version : 1;
  return {
    id: identity.n,
    key: identity.key,
    title: title.trim(),
    status: data.status,
    kind,
    priority,
    ...strings,
    labels: lists.labels,
    depends_on: deps,
    blocked_by: lists.blocked_by,
    references: lists.references,
    version,
  };
}

/** Each top-level key with the byte range of its line and its value's continuation lines. */
function keySpans(text: string, from: number, to: number): KeySpan[] {
  const out: KeySpan[] = [];
  let current: KeySpan | null = null;
  for (const l of lines(text, from, to)) {
    const m = KEY_LINE.exec(l.line);
    if (m?.[1] !== undefined) {
      if (current) out.push(current);
      current = { key: m[1], start: l.start, end: l.end };
      continue;
    }
    if (current === null) continue;
    // Indented lines and block-sequence items continue the value; blank lines join only when more of the
    // value follows. A comment or anything else at column 0 ends it and is left alone on rewrite.
    if (/^([ \t]+\S|-( |$))/.test(l.line)) current.end = l.end;
    else if (l.line.trim() !== '') {
      out.push(current);
      current = null;
    }
  }
  if (current) out.push(current);
  return out;
}

function sectionSpans(text: string, bodyStart: number): { spans: SectionSpan[]; unknown: string[] } {
  const headings: { start: number; contentStart: number; title: string }[] = [];
  let fenced = false;
  for (const l of lines(text, bodyStart, text.length)) {
    if (FENCE.test(l.line)) fenced = !fenced;
    if (fenced) continue;
    const m = HEADING.exec(l.line);
    if (m?.[2] !== undefined) headings.push({ start: l.start, contentStart: l.end, title: m[2] });
  }
  const spans: SectionSpan[] = [];
  const unknown: string[] = [];
  const seen = new Set<SectionName>();
  headings.forEach((h, i) => {
    const name = SECTION_NAMES.find((n) => n.toLowerCase() === h.title.toLowerCase());
    if (name === undefined || seen.has(name)) {
      unknown.push(h.title);
      return;
    }
    seen.add(name);
    spans.push({
      name,
      heading: h.start,
      contentStart: h.contentStart,
      end: headings[i + 1]?.start ?? text.length,
    });
  });
  return { spans, unknown };
}

// ---------------------------------------------------------------------------------------------------
// Writing

/** The hub's own timestamps (`2026-11-30T10:00:00.000Z`), and the plain dates other tools write. */
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?$/;
const DATE_KEYS: ReadonlySet<keyof TaskFields> = new Set(['created', 'started', 'completed']);

/**
 * A known key's value as its line writes it. Strings are quoted wherever a common YAML reader would not
 * read them back as the same string (yaml-scalar.ts); a date key's timestamp stays plain, so every reader
 * that has dates reads a date, as it did in the file.
 */
export function formatValue(value: TaskFields[keyof TaskFields], key?: keyof TaskFields): string {
  if (value === null) return '';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${value.map(yamlString).join(', ')}]`;
  if (typeof value === 'number') return String(value);
  const s = String(value);
  if (key !== undefined && DATE_KEYS.has(key) && TIMESTAMP.test(s)) return s;
  return yamlString(s);
}

const keyLine = (key: keyof TaskFields, fields: TaskFields, eol: string): string => {
  // The id line is the key as the board spells it (`TASK-046`), not the bare number.
  const v = key === 'id' ? fields.key : formatValue(fields[key], key);
  return v === '' ? `${key}:${eol}` : `${key}: ${v}${eol}`;
};

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

/** A section's lines as written under its heading: escaped so they read back as this text and no other. */
function sectionContent(text: string, eol: string, atEnd: boolean): string {
  if (cleanSection(text) === '') return eol;
  const t = encodeSection(text).replace(/\n/g, eol);
  return `${eol}${t}${eol}${atEnd ? '' : eol}`;
}

/** A new file: every known key in order and every known section, empty ones included as a template. */
export function renderNewTask(fields: TaskFields, sections: TaskSections): string {
  const eol = '\n';
  let out = `---${eol}`;
  for (const key of FIELD_ORDER) out += keyLine(key, fields, eol);
  out += `---${eol}${eol}`;
  SECTION_NAMES.forEach((name, i) => {
    out += `## ${name}${eol}${sectionContent(sections[SECTION_KEYS[name]], eol, i === SECTION_NAMES.length - 1)}`;
  });
  return out;
}

/**
 * The document's text with the given fields and sections. Known keys and sections whose values did not
 * change keep their original bytes, as does everything the hub does not know.
 */
export function renderTask(doc: TaskDocument, fields: TaskFields, sections: TaskSections): string {
  const { text, eol } = doc;
  const edits: { start: number; end: number; insert: string }[] = [];

  const missing: string[] = [];
  const written = doc.fileFields ?? doc.fields;
  for (const key of FIELD_ORDER) {
    if (sameValue(written[key], fields[key])) continue;
    // Another tool's `version` line is theirs: the hub's version of such a task lives in the index.
    if (key === 'version' && !doc.ownsVersion) continue;
    const span = doc.keys.find((k) => k.key === key);
    if (span) edits.push({ start: span.start, end: span.end, insert: keyLine(key, fields, eol) });
    else missing.push(keyLine(key, fields, eol));
  }
  if (missing.length > 0) {
    // New keys go after the last known key, so they sit with their siblings rather than after comments.
    const lastKnown = [...doc.keys].reverse().find((k) => (FIELD_ORDER as readonly string[]).includes(k.key));
    const at = lastKnown?.end ?? doc.fm.end;
    const needsEol = at > doc.fm.start && text[at - 1] !== '\n';
    edits.push({ start: at, end: at, insert: (needsEol ? eol : '') + missing.join('') });
  }

  const appended: SectionName[] = [];
  for (const name of SECTION_NAMES) {
    const key = SECTION_KEYS[name];
    if (doc.sections[key] === cleanSection(sections[key])) continue;
    const span = doc.sectionSpans.find((s) => s.name === name);
    if (span) {
      edits.push({
        start: span.contentStart,
        end: span.end,
        insert: sectionContent(sections[key], eol, span.end === text.length),
      });
    } else if (cleanSection(sections[key]) !== '') appended.push(name);
  }
  if (appended.length > 0) {
    let tail = text.endsWith('\n') || text.length === doc.bodyStart ? '' : eol;
    appended.forEach((name, i) => {
      tail += `${eol}## ${name}${eol}${sectionContent(sections[SECTION_KEYS[name]], eol, i === appended.length - 1)}`;
    });
    edits.push({ start: text.length, end: text.length, insert: tail });
  }

  edits.sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of edits) out = out.slice(0, e.start) + e.insert + out.slice(e.end);
  return out;
}

/** A work-log entry: a dated bullet naming the agent session, continuation lines indented under it. */
export function workLogLine(text: string, actor: Actor, now: string): string {
  const who = actor.agentSession ? ` (${actor.agentSession})` : '';
  const [first = '', ...rest] = text.trim().split(/\r?\n/);
  return [`- ${now}${who} ${first}`, ...rest.map((l) => `  ${l}`)].join('\n');
}

export const appendLog = (sections: TaskSections, line: string): TaskSections => ({
  ...sections,
  work_log: sections.work_log === '' ? line : `${sections.work_log}\n${line}`,
});

/** The file name of a new task: its key (`TASK-046`) and a slug of its title. */
export const taskFileName = (key: string, slug: string): string => `${key}-${slug}.md`;

/** The document with the hub's version of the task, for a file whose `version` line is another tool's. */
export function withVersion(doc: TaskDocument, version: number): TaskDocument {
  if (doc.ownsVersion || doc.fields.version === version) return doc;
  return { ...doc, fields: { ...doc.fields, version } };
}
