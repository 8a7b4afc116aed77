// Markdown without a grammar: ATX and setext headings (nested by level), links to files and headings,
// and code references (inline code that names a repo path or a symbol). Fenced blocks are skipped.
import type { Extraction, GraphNode } from '../types.ts';
import { docFileUid, headingUid, slugify } from '../uid.ts';
import { Builder } from './common.ts';

const LINK = /!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const REF_DEF = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;
const INLINE_CODE = /`([^`\n]+)`/g;

export function extractMarkdown(path: string, text: string): Extraction {
  const b = new Builder(path, text, { uid: docFileUid(path), kind: 'doc_file' });
  const lines = text.split('\n');
  const slugs = new Map<string, number>();
  // Open headings by level, to nest them and to know which heading a link sits under.
  const open: GraphNode[] = [];
  let fence: string | undefined;
  const current = () => open[open.length - 1]?.uid ?? b.fileUid;

  const heading = (level: number, raw: string, line: number) => {
    const title = raw.replace(/\s+#+\s*$/, '').trim();
    let slug = slugify(title.replace(/`/g, ''));
    const n = slugs.get(slug) ?? 0;
    slugs.set(slug, n + 1);
    if (n > 0) slug = `${slug}-${n}`;
    while (open.length && (open[open.length - 1]!.metadata?.level as number) >= level) {
      open.pop()!.endLine = line - 1;
    }
    const node = b.add({
      uid: headingUid(path, slug),
      kind: 'heading',
      label: title,
      qualifiedName: slug,
      startLine: line,
      endLine: lines.length,
      parent: current(),
      signature: `${'#'.repeat(level)} ${title}`,
      metadata: { level },
    });
    open.push(node);
  };

  for (let i = frontMatterEnd(lines); i < lines.length; i++) {
    const line = lines[i]!;
    const lineNo = i + 1;
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0];
      else if (f[1]![0] === fence) fence = undefined;
      continue;
    }
    if (fence) continue;
    const h = /^\s{0,3}(#{1,6})\s+(.+)$/.exec(line);
    if (h) {
      heading(h[1]!.length, h[2]!, lineNo);
      continue;
    }
    const next = lines[i + 1];
    if (next !== undefined && line.trim() && /^\s{0,3}(=+|-+)\s*$/.test(next) && !/^\s*[-*+]\s/.test(line)) {
      if (/^\s{0,3}=+\s*$/.test(next) || next.trim().length >= 2) {
        heading(next.trim()[0] === '=' ? 1 : 2, line, lineNo);
        i++;
        continue;
      }
    }
    const from = current();
    const link = (target: string, col: number) => {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return; // http:, mailto:, …: outside the repo
      b.ref({
        type: target.startsWith('#') ? 'cites_heading' : 'links_to',
        from,
        name: target,
        line: lineNo,
        col,
      });
    };
    const def = REF_DEF.exec(line);
    if (def) link(def[1]!, 1);
    for (const m of line.matchAll(LINK)) link(m[2]!, (m.index ?? 0) + 1);
    for (const m of line.matchAll(INLINE_CODE)) {
      const code = m[1]!.trim();
      // A path (has a slash or a file extension) or an identifier-like name, optionally called.
      if (
        /^[\w@./-]+\.[a-z]{1,5}$/i.test(code) ||
        /^[\w@.-]+\/[\w@./-]+$/.test(code) ||
        /^[A-Za-z_][\w.]{2,}(\(\))?$/.test(code)
      ) {
        b.ref({
          type: 'links_to',
          from,
          name: code.replace(/\(\)$/, ''),
          module: 'code',
          line: lineNo,
          col: (m.index ?? 0) + 1,
        });
      }
    }
  }
  return b.result();
}

/**
 * The index of the first line after a leading front-matter block (YAML between `---` lines, or `...`
 * closing it; TOML between `+++`), or 0. Its last field above the closing `---` would otherwise read
 * as a setext heading.
 */
function frontMatterEnd(lines: string[]): number {
  const first = lines[0]?.replace(/^\uFEFF/, '').trimEnd();
  if (first !== '---' && first !== '+++') return 0;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!.trimEnd();
    if (l === first || (first === '---' && l === '...')) return i + 1;
  }
  // Never closed: not front matter (a thematic break opening the file).
  return 0;
}
