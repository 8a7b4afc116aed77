// Splits a document into search chunks. Markdown is cut at H1–H3 headings (deeper headings stay inside
// their section) so a hit can name the section to open; sections longer than about 2,000 characters are cut
// further at paragraph breaks, never inside a fenced code block unless one block alone is too long. Other
// text formats are cut by paragraphs. Front matter is parsed, not indexed as text.
import { parse as parseYaml } from 'yaml';

export const CHUNK_TARGET_CHARS = 2000;

export type DocFormat = 'markdown' | 'rst' | 'text';

export interface Chunk {
  index: number;
  /** Headings above this chunk, outermost first. */
  headingPath: string[];
  /** GitHub-style slug of the innermost heading, unique within the document; null before any heading. */
  anchor: string | null;
  text: string;
}

export interface ChunkedDoc {
  format: DocFormat;
  frontMatter: Record<string, unknown>;
  /** Why the front matter was ignored, when it did not parse as a YAML mapping. */
  frontMatterError: string | null;
  /** The first heading (markdown, rst) or first line (text). */
  title: string | null;
  chunks: Chunk[];
}

export function formatOf(path: string): DocFormat | null {
  const lower = path.toLowerCase();
  if (/\.(md|markdown|mdx)$/.test(lower)) return 'markdown';
  if (lower.endsWith('.rst')) return 'rst';
  if (lower.endsWith('.txt') || lower.endsWith('.adoc')) return 'text';
  return null;
}

export function chunkDocument(path: string, source: string): ChunkedDoc {
  const format = formatOf(path) ?? 'text';
  const text = source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (format === 'markdown') return chunkMarkdown(text);
  const chunks = splitParagraphs(text).map((t, index) => ({ index, headingPath: [], anchor: null, text: t }));
  const title = format === 'rst' ? rstTitle(text) : firstLine(text);
  return { format, frontMatter: {}, frontMatterError: null, title, chunks };
}

interface FrontMatter {
  data: Record<string, unknown>;
  error: string | null;
  body: string;
}

export function splitFrontMatter(text: string): FrontMatter {
  const m = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (!m) return { data: {}, error: null, body: text };
  const body = text.slice(m[0].length);
  try {
    // The core schema keeps dates as strings: front matter is shown back as written.
    const parsed: unknown = parseYaml(m[1] ?? '', { schema: 'core' });
    if (parsed === null || parsed === undefined) return { data: {}, error: null, body };
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      return { data: {}, error: 'front matter is not a mapping of keys to values', body };
    }
    return { data: parsed as Record<string, unknown>, error: null, body };
  } catch (err) {
    return {
      data: {},
      error: `front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`,
      body,
    };
  }
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

interface Section {
  level: number;
  headingPath: string[];
  anchor: string | null;
  lines: string[];
}

function chunkMarkdown(source: string): ChunkedDoc {
  const fm = splitFrontMatter(source);
  const sections: Section[] = [];
  const stack: { level: number; title: string }[] = [];
  const slugs = new Map<string, number>();
  let title: string | null = null;
  let current: Section = { level: 0, headingPath: [], anchor: null, lines: [] };
  let fence: string | null = null;

  for (const line of fm.body.split('\n')) {
    const f = FENCE.exec(line);
    if (f?.[1]) {
      const marker = f[1];
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      current.lines.push(line);
      continue;
    }
    let heading: { level: number; raw: string } | null = null;
    const h = fence === null ? HEADING.exec(line) : null;
    if (h?.[1] && h[2]) heading = { level: h[1].length, raw: h[2] };
    else if (fence === null) {
      // Setext: a one-line paragraph underlined with === (H1) or --- (H2). A longer paragraph above the
      // underline, or none, leaves the line alone (then `---` is a thematic break).
      const u = SETEXT.exec(line);
      const above = current.lines.at(-1);
      const twoAbove = current.lines.at(-2);
      if (
        u?.[1] &&
        above !== undefined &&
        above.trim() !== '' &&
        (twoAbove === undefined || twoAbove.trim() === '')
      ) {
        if (!/^ {0,3}([-*+]|\d+[.)]|>)\s/.test(above)) {
          current.lines.pop();
          heading = { level: u[1].startsWith('=') ? 1 : 2, raw: above.trim() };
        }
      }
    }
    if (heading) {
      const { level } = heading;
      const text = stripInline(heading.raw);
      if (title === null) title = text;
      // Every heading gets a slug, as GitHub numbers duplicates across the whole document.
      const slug = uniqueSlug(slugify(text), slugs);
      if (level <= 3) {
        sections.push(current);
        while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
        stack.push({ level, title: text });
        current = { level, headingPath: stack.map((s) => s.title), anchor: slug, lines: [] };
        continue;
      }
      current.lines.push(line);
      continue;
    }
    current.lines.push(line);
  }
  sections.push(current);

  const chunks: Chunk[] = [];
  for (const s of sections) {
    for (const piece of splitParagraphs(s.lines.join('\n'))) {
      chunks.push({ index: chunks.length, headingPath: s.headingPath, anchor: s.anchor, text: piece });
    }
  }
  return { format: 'markdown', frontMatter: fm.data, frontMatterError: fm.error, title, chunks };
}

/**
 * Paragraphs packed greedily up to the target size. A blank line inside a fenced block does not end a
 * paragraph, so code stays whole; a single paragraph longer than the target is cut at whitespace.
 */
export function splitParagraphs(text: string, target = CHUNK_TARGET_CHARS): string[] {
  const paragraphs: string[] = [];
  let buf: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    const p = buf.join('\n').trim();
    if (p !== '') paragraphs.push(p);
    buf = [];
  };
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line);
    if (f?.[1]) {
      if (fence === null) fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
    }
    if (fence === null && line.trim() === '') flush();
    else buf.push(line);
  }
  flush();

  const out: string[] = [];
  let acc = '';
  for (const p of paragraphs.flatMap((p) => (p.length > target ? hardSplit(p, target) : [p]))) {
    if (acc === '') acc = p;
    else if (acc.length + 2 + p.length <= target) acc = `${acc}\n\n${p}`;
    else {
      out.push(acc);
      acc = p;
    }
  }
  if (acc !== '') out.push(acc);
  return out;
}

function hardSplit(p: string, target: number): string[] {
  const out: string[] = [];
  let rest = p;
  while (rest.length > target) {
    let cut = rest.lastIndexOf(' ', target);
    const nl = rest.lastIndexOf('\n', target);
    if (nl > cut) cut = nl;
    // No whitespace in reach (CJK, a long token): cut at the target rather than emit a giant chunk.
    if (cut < target / 2) cut = target;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest !== '') out.push(rest);
  return out;
}

/** Drops inline markup a reader does not type: links keep their text, code and emphasis lose their marks. */
function stripInline(s: string): string {
  return s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .trim();
}

/** GitHub's anchor rule: lower-case, drop punctuation, spaces to hyphens. */
export function slugify(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

function uniqueSlug(slug: string, seen: Map<string, number>): string {
  const n = seen.get(slug);
  seen.set(slug, (n ?? 0) + 1);
  return n === undefined ? slug : `${slug}-${n}`;
}

function rstTitle(text: string): string | null {
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i]!.trim();
    const under = lines[i + 1]!.trim();
    if (line !== '' && /^([=\-~^"'`#*+])\1+$/.test(under) && under.length >= line.length) return line;
  }
  return firstLine(text);
}

function firstLine(text: string): string | null {
  const line = text.split('\n').find((l) => l.trim() !== '');
  return line === undefined ? null : line.trim().slice(0, 200);
}
