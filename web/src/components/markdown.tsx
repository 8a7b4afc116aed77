// A small, safe markdown view for task bodies and doc snippets: headings, lists, fenced code and
// paragraphs, built as React elements (never as HTML), so a task file cannot inject markup.
import type { ReactNode } from 'react';

function inline(text: string): ReactNode[] {
  // `code` and **bold**; everything else is plain text.
  const out: ReactNode[] = [];
  const re = /(`[^`]+`|\*\*[^*]+\*\*)/g;
  let last = 0;
  for (const match of text.matchAll(re)) {
    const at = match.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const token = match[0];
    out.push(
      token.startsWith('`') ? (
        <code key={at}>{token.slice(1, -1)}</code>
      ) : (
        <strong key={at}>{token.slice(2, -2)}</strong>
      ),
    );
    last = at + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function Markdown({ text }: { text: string }) {
  const blocks: ReactNode[] = [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.startsWith('```')) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').startsWith('```')) code.push(lines[i++] ?? '');
      i++;
      blocks.push(
        <pre key={blocks.length}>
          <code>{code.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      blocks.push(
        <p key={blocks.length} className="md-heading">
          <strong>{inline(heading[2] ?? '')}</strong>
        </p>,
      );
      i++;
      continue;
    }
    if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      const items: string[] = [];
      while (i < lines.length && /^\s*([-*]|\d+\.)\s+/.test(lines[i] ?? '')) {
        items.push((lines[i] ?? '').replace(/^\s*([-*]|\d+\.)\s+/, ''));
        i++;
      }
      blocks.push(
        <ul key={blocks.length}>
          {items.map((item, n) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: list items have no identity beyond their position
            <li key={n}>{inline(item)}</li>
          ))}
        </ul>,
      );
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      (lines[i] ?? '').trim() !== '' &&
      !/^(#{1,6}\s|```|\s*([-*]|\d+\.)\s)/.test(lines[i] ?? '')
    ) {
      para.push(lines[i++] ?? '');
    }
    blocks.push(<p key={blocks.length}>{inline(para.join(' '))}</p>);
  }
  return <div className="markdown">{blocks}</div>;
}
