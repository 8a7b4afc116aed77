// cos_graph_context lists distinct neighbours: a template helper called 95 times by one renderer is one
// neighbour with a count and its lines, so a page of 25 shows 25 different symbols (issue 31). The
// repository is written the way such code is written: a hand-rolled HTML renderer in TypeScript, a
// report builder in Python formatting every cell through one helper.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type GraphHub, graphHub } from './support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

let dir: string;
let g: GraphHub;

const ESCAPES = 95;
const WIDGETS = 30;
const FIRST_ESCAPE_LINE = 6;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cos-context-grouped-'));
  const w = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const fields = Array.from({ length: ESCAPES }, (_, i) => `field_${i}`);
  w(
    'src/html/escape.ts',
    [
      "const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;' };",
      'export function escapeHtml(s: unknown): string {',
      "  return String(s ?? '').replace(/[&<>\"]/g, (c) => ENTITIES[c] ?? c);",
      '}',
      '',
    ].join('\n'),
  );
  w(
    'src/html/widgets.ts',
    Array.from(
      { length: WIDGETS },
      (_, i) =>
        `export const widget${i} = (label: string): string => \`<span class="w${i}">\${label}</span>\`;\n`,
    ).join(''),
  );
  // Line 6 is the first escapeHtml call; two of them share line 6 + ESCAPES - 1 (a `title` in the cell).
  w(
    'src/html/render-row.ts',
    [
      "import { escapeHtml } from './escape';",
      `import { ${Array.from({ length: WIDGETS }, (_, i) => `widget${i}`).join(', ')} } from './widgets';`,
      '',
      'export function renderRow(row: Record<string, unknown>): string {',
      "  let out = '<tr>';",
      ...fields.slice(0, -1).map((f) => `  out += '<td>' + escapeHtml(row.${f}) + '</td>';`),
      `  out += '<td title="' + escapeHtml(row.title) + '">' + escapeHtml(row.${fields.at(-1)}) + '</td>';`,
      ...Array.from({ length: WIDGETS }, (_, i) => `  out += widget${i}(escapeHtml.name);`),
      "  return out + '</tr>';",
      '}',
      '',
      'export function renderEmpty(): string {',
      "  return '<tr><td>' + escapeHtml('no rows') + '</td></tr>';",
      '}',
      '',
    ].join('\n'),
  );
  w(
    'reports/build.py',
    [
      'from decimal import Decimal',
      '',
      '',
      'def fmt(value, places=2):',
      '    if value is None:',
      '        return "-"',
      '    return f"{Decimal(value):.{places}f}"',
      '',
      '',
      'def build_report(rows):',
      '    lines = []',
      '    for row in rows:',
      '        lines.append(',
      '            " | ".join(',
      '                [',
      ...Array.from({ length: 12 }, (_, i) => `                    fmt(row["c${i}"]),`),
      '                ]',
      '            )',
      '        )',
      '    return "\\n".join(lines)',
      '',
    ].join('\n'),
  );
  g = await graphHub(dir);
});
after(async () => {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
});

const outCalls = (d: Item) => (d.edges_by_type.calls ?? []).filter((e: Item) => e.direction === 'out');
const inCalls = (d: Item) => (d.edges_by_type.calls ?? []).filter((e: Item) => e.direction === 'in');

describe('cos_graph_context groups call sites by neighbour', () => {
  const renderRow = 'code:function:src/html/render-row.ts::renderRow';
  const escapeHtml = 'code:function:src/html/escape.ts::escapeHtml';

  test('95 calls of one helper are one neighbour with their count and lines', async () => {
    const d = await g.data('cos_graph_context', { node: renderRow, edge_types: ['calls'] });
    const calls = outCalls(d);
    const escapes = calls.filter((e: Item) => e.uid === escapeHtml);
    assert.equal(escapes.length, 1, 'one entry for escapeHtml');
    assert.equal(escapes[0].count, ESCAPES + 1, 'every call site counted (two on the last cell line)');
    assert.equal(escapes[0].line, FIRST_ESCAPE_LINE);
    assert.equal(escapes[0].lines.length, 20, 'the first 20 lines');
    assert.deepEqual(
      escapes[0].lines,
      Array.from({ length: 20 }, (_, i) => FIRST_ESCAPE_LINE + i),
    );
    assert.equal(escapes[0].confidence, 1);
    // The most used neighbour comes first; the page holds distinct symbols.
    assert.equal(calls[0].uid, escapeHtml);
    assert.equal(new Set(calls.map((e: Item) => e.uid)).size, calls.length);
    assert.equal(calls.length, 25);
    for (const e of calls.slice(1)) {
      assert.match(e.uid, /::widget\d+$/);
      assert.equal(e.count, 1);
      assert.deepEqual(e.lines, [e.line]);
    }
    // Sites and neighbours are both counted; the cut is in neighbours.
    assert.equal(d.edge_counts.calls.out, ESCAPES + 1 + WIDGETS);
    assert.equal(d.neighbour_counts.calls.out, 1 + WIDGETS);
    assert.deepEqual(d.omitted, [
      { edge_type: 'calls', direction: 'out', listed: 25, total: 1 + WIDGETS, from: 0 },
    ]);
    assert.equal(d.meta.next_offset, 25);
  });

  test('the next page lists the remaining neighbours once each', async () => {
    const first = await g.data('cos_graph_context', { node: renderRow, edge_types: ['calls'] });
    const next = await g.data('cos_graph_context', {
      node: renderRow,
      edge_types: ['calls'],
      offset: first.meta.next_offset,
    });
    const all = [...outCalls(first), ...outCalls(next)].map((e: Item) => e.uid);
    assert.equal(all.length, 1 + WIDGETS);
    assert.equal(new Set(all).size, 1 + WIDGETS);
    assert.equal(next.meta.next_offset, null);
  });

  test('callers are grouped too: the renderer once with its count, the other caller once', async () => {
    const d = await g.data('cos_graph_context', { node: 'escapeHtml', edge_types: ['calls'] });
    assert.equal(d.meta.resolved_from, 'exact_unique');
    const callers = inCalls(d);
    assert.deepEqual(
      callers.map((e: Item) => [e.label, e.count]),
      [
        ['renderRow', ESCAPES + 1],
        ['renderEmpty', 1],
      ],
    );
    assert.equal(d.edge_counts.calls.in, ESCAPES + 2);
    assert.equal(d.neighbour_counts.calls.in, 2);
    assert.deepEqual(d.omitted, []);
  });

  test('Python: twelve cells formatted through one helper are one neighbour', async () => {
    const d = await g.data('cos_graph_context', {
      node: 'code:function:reports/build.py::build_report',
      edge_types: ['calls'],
    });
    const fmt = outCalls(d).filter((e: Item) => e.label === 'fmt');
    assert.equal(fmt.length, 1);
    assert.equal(fmt[0].uid, 'code:function:reports/build.py::fmt');
    assert.equal(fmt[0].count, 12);
    assert.deepEqual(
      fmt[0].lines,
      Array.from({ length: 12 }, (_, i) => 16 + i),
    );
  });
});
