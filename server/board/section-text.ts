// What an agent writes into a task's section (an outcome, acceptance criteria, the work log) must read back
// as exactly that text and nothing else. The file is Markdown that the parser splits at `#` and `##`
// headings outside code fences, so text containing a line `## Acceptance` would start a section of its
// own, a leading `# Title` would empty the outcome, and an unclosed ``` fence would swallow every section
// after it. encodeSection escapes, with one backslash, each line that the parser would take for a heading
// or that would leave a fence open (and each line that already starts with backslashes before `#` or a
// fence, so decoding stays exact); decodeSection removes one. A backslash before `#` is also what
// Markdown itself reads as a literal `#`, so the file still renders as the text.

const FENCE = /^(```|~~~)/;
/** Lines encodeSection escapes outside a fence: headings and fence-like lines, with any backslashes before. */
const ESCAPABLE = /^\\*#{1,2}[ \t]|^\\+(```|~~~)/;
const ESCAPED = /^\\+(#{1,2}[ \t]|```|~~~)/;

/**
 * A section's text as the hub keeps it: line ends as `\n`, no blank lines before the first line and no
 * whitespace after the last. The first line's indentation is kept (four spaces make a code block).
 */
export function cleanSection(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
}

/** Which lines are inside a code fence, as the section parser walks them; line `skip` is not a fence. */
function fencedLines(lines: string[], skip = -1): boolean[] {
  let fenced = false;
  return lines.map((line, i) => {
    if (i === skip || !FENCE.test(line)) return fenced;
    fenced = !fenced;
    return false;
  });
}

/** The text to write under a section heading (lines joined by `\n`; the caller picks the line ends). */
export function encodeSection(text: string): string {
  const lines = cleanSection(text).split('\n');
  // A fence left open would run on over the sections after this one: its opening line is escaped.
  let open = -1;
  lines.forEach((line, i) => {
    if (FENCE.test(line)) open = open === -1 ? i : -1;
  });
  const fenced = fencedLines(lines, open);
  return lines
    .map((line, i) => {
      if (i === open) return `\\${line}`;
      if (fenced[i] || FENCE.test(line)) return line;
      return ESCAPABLE.test(line) ? `\\${line}` : line;
    })
    .join('\n');
}

/** A section's text as read from the file (between its heading and the next): the inverse of encodeSection. */
export function decodeSection(raw: string): string {
  const lines = cleanSection(raw).split('\n');
  const fenced = fencedLines(lines);
  return lines
    .map((line, i) => (!fenced[i] && !FENCE.test(line) && ESCAPED.test(line) ? line.slice(1) : line))
    .join('\n');
}
