import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseTaskFile, renderNewTask, renderTask } from '../../../server/board/task-file.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/board/${name}`, import.meta.url), 'utf8');

function parse(text: string, name: string) {
  const r = parseTaskFile(text, name);
  if (!r.ok) assert.fail(r.reason);
  return r.doc;
}

describe('task file format', () => {
  it('round-trips a hand-written file byte for byte when nothing changes', () => {
    const text = fixture('TASK-7-hand-written.md');
    const doc = parse(text, 'TASK-7-hand-written.md');
    assert.equal(renderTask(doc, doc.fields, doc.sections), text);
    assert.deepEqual(doc.unknownKeys, ['owner', 'estimate', 'notes']);
    assert.deepEqual(doc.unknownSections, ['Design Notes']);
    assert.equal(doc.fields.priority, 'P1');
    assert.deepEqual(doc.fields.labels, ['ready', 'ui']);
    assert.equal(doc.sections.acceptance, 'Given a page\nWhen it loads\nThen the widget renders');
  });

  it('rewrites only the changed known lines and keeps unknown keys and sections byte for byte', () => {
    const text = fixture('TASK-7-hand-written.md');
    const doc = parse(text, 'TASK-7-hand-written.md');
    const out = renderTask(
      doc,
      { ...doc.fields, status: 'in_progress', version: 5, agent_session: 'agent-1', labels: ['ui'] },
      { ...doc.sections, work_log: `${doc.sections.work_log}\n- later entry` },
    );
    for (const kept of [
      '# Kept as written: comments, odd spacing, keys the hub does not know.\n',
      'title: \'Hand-written task: with "quotes"\'\n',
      'owner:   alice    # an unknown key with a trailing comment\n',
      'estimate: { low: 1, high: 3 }\n',
      'notes: |\n  A block scalar\n\n  with a blank line inside.\n',
      'priority: p1\n',
      'Some preamble the hub does not own.\n',
      '## Design Notes\n\nUnknown section:   spacing    kept.\n```md\n## Outcome\n(inside a fence: not a heading)\n```\n\n',
    ])
      assert.ok(out.includes(kept), `kept: ${kept}`);
    assert.ok(out.includes('status: in_progress\n'));
    assert.ok(out.includes('labels: [ui]\n'));
    assert.ok(out.includes('version: 5\n'));
    assert.ok(out.includes('agent_session: agent-1\n'), 'a missing known key is added');
    const again = parse(out, 'TASK-7-hand-written.md');
    assert.equal(again.fields.status, 'in_progress');
    assert.equal(again.sections.work_log, '- 2026-01-02T03:04:05Z (alice) looked at it\n- later entry');
    assert.deepEqual(again.unknownKeys, doc.unknownKeys);
    // And a second no-op render of the rewritten file is byte-identical again.
    assert.equal(renderTask(again, again.fields, again.sections), out);
  });

  it('keeps CRLF line endings and unknown bytes in a CRLF file', () => {
    const text = fixture('TASK-8-crlf.md');
    const doc = parse(text, 'TASK-8-crlf.md');
    assert.equal(renderTask(doc, doc.fields, doc.sections), text);
    const out = renderTask(
      doc,
      { ...doc.fields, status: 'complete', version: 2 },
      { ...doc.sections, outcome: 'Done.' },
    );
    assert.ok(out.includes('status: complete\r\n'));
    assert.ok(out.includes('extra: kept\r\n'));
    assert.ok(out.includes('## Custom\r\n\r\nx  y\r\n'));
    assert.ok(!/[^\r]\n/.test(out), 'no bare LF introduced');
  });

  it('adds a missing known section at the end without touching the rest', () => {
    const text = '---\nid: TASK-3\ntitle: T\nstatus: icebox\n---\n\n## Mine\n\nkeep\n';
    const doc = parse(text, 'TASK-3-t.md');
    const out = renderTask(doc, doc.fields, { ...doc.sections, work_log: '- first' });
    assert.equal(out, `${text}\n## Work Log\n\n- first\n`);
  });

  it('renders a new task that parses back to the same fields and sections', () => {
    const fields = {
      id: 12,
      key: 'TASK-12',
      title: 'Colon: and # hash, "quotes"',
      status: 'icebox' as const,
      kind: 'chore' as const,
      priority: 'P0' as const,
      appetite: '2h',
      swimlane: 'hub',
      epic: null,
      labels: ['ready', 'a,b', '[x]'],
      created: '2026-11-30T10:00:00.000Z',
      started: null,
      completed: null,
      agent_session: null,
      depends_on: ['TASK-3'],
      blocked_by: ['waiting on: review'],
      references: ['docs/x.md#y'],
      version: 1,
    };
    const sections = { outcome: 'Out', read_first: '', acceptance: 'Given\nWhen\nThen', work_log: '' };
    const text = renderNewTask(fields, sections);
    const doc = parse(text, 'TASK-12-colon.md');
    assert.deepEqual(doc.fields, fields);
    assert.deepEqual(doc.sections, sections);
  });

  it('reports why a file does not parse, with no absolute path', () => {
    const cases: [string, string, RegExp][] = [
      ['no front matter', 'TASK-1-x.md', /start with a "---"/],
      ['---\ntitle: x\nstatus: icebox\n', 'TASK-1-x.md', /no closing/],
      ['---\ntitle: [unclosed\nstatus: icebox\n---\n', 'TASK-1-x.md', /does not parse/],
      ['---\n- a list\n---\n', 'TASK-1-x.md', /mapping/],
      ['---\ntitle: x\nstatus: doing\n---\n', 'TASK-1-x.md', /status "doing"/],
      ['---\ntitle: x\nstatus: icebox\nkind: epic\n---\n', 'TASK-1-x.md', /kind "epic"/],
      ['---\ntitle: x\nstatus: icebox\npriority: P9\n---\n', 'TASK-1-x.md', /priority "P9"/],
      ['---\nid: TASK-2\ntitle: x\nstatus: icebox\n---\n', 'TASK-1-x.md', /does not match/],
      ['---\ntitle: x\nstatus: icebox\ndepends_on: [soon]\n---\n', 'TASK-1-x.md', /depends_on entry/],
      ['---\nid: TASK-000\ntitle: x\nstatus: icebox\n---\n', 'TASK-1-x.md', /not a task id/],
      ['---\nstatus: icebox\n---\n', 'TASK-1-x.md', /title/],
      ['---\ntitle: x\ntitle: y\nstatus: icebox\n---\n', 'TASK-1-x.md', /does not parse/],
      ['---\ntitle: x\nstatus: icebox\n---\n', 'notes.md', /no id and the file name does not start with one/],
    ];
    for (const [text, name, re] of cases) {
      const r = parseTaskFile(text, name);
      assert.equal(r.ok, false, text);
      if (!r.ok) {
        assert.match(r.reason, re);
        assert.ok(!r.reason.includes('/tmp'), 'no absolute path');
      }
    }
  });

  it('keeps arbitrary unknown keys and sections byte for byte through a status change (property)', () => {
    const key = fc.stringMatching(/^x_[a-z]{1,8}$/);
    const value = fc.stringMatching(/^[a-zA-Z0-9 ]{0,20}$/).map((s) => s.trim() || 'v');
    const heading = fc
      .stringMatching(/^[A-Z][a-z]{2,10}$/)
      .filter((h) => !['Outcome', 'Acceptance'].includes(h));
    const body = fc.stringMatching(/^[a-z ]{1,30}$/).map((s) => s.trim() || 'b');
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(key, value), { selector: (t) => t[0], maxLength: 5 }),
        fc.array(fc.tuple(heading, body), { maxLength: 4 }),
        (keys, sections) => {
          const fm = keys.map(([k, v]) => `${k}:  ${v}\n`).join('');
          const extra = sections.map(([h, b]) => `## ${h}\n\n${b}   \n\n`).join('');
          const text = `---\nid: TASK-5\n${fm}title: Prop\nstatus: icebox\nversion: 1\n---\n\n${extra}## Work Log\n\n- one\n`;
          const doc = parse(text, 'TASK-5-prop.md');
          const out = renderTask(
            doc,
            { ...doc.fields, status: 'in_progress', version: 2 },
            { ...doc.sections, work_log: '- one\n- two' },
          );
          for (const [k, v] of keys) assert.ok(out.includes(`${k}:  ${v}\n`));
          assert.ok(out.includes(extra));
          assert.equal(renderTask(doc, doc.fields, doc.sections), text);
        },
      ),
      { numRuns: 200 },
    );
  });
});
