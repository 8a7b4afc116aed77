// Issue #15, the two task-file items. What an agent writes into a field reads back as exactly that field:
// section text cannot forge another section (headings, a leading `# Title`, an indented heading, an
// unclosed fence), and front-matter strings are quoted wherever any common YAML reader would read them
// as something else (YAML 1.1 booleans and numbers, dates, controls such as DEL). The second reader is
// the `yaml` package in YAML 1.1 mode, and PyYAML itself when python3 has it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import type { TaskSections } from '../../../server/board/model.ts';
import { cleanSection } from '../../../server/board/section-text.ts';
import { parseTaskFile, renderNewTask, renderTask } from '../../../server/board/task-file.ts';
import { api, openHub, removeRepo, type TestHub } from './helpers.ts';

const frontMatter = (text: string): string => {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  assert.ok(m?.[1] !== undefined, 'the file has front matter');
  return m[1];
};

describe('section text cannot forge another section', () => {
  let hub: TestHub;
  before(() => {
    hub = openHub();
  });
  after(() => {
    hub.close();
    removeRepo(hub.repo);
  });

  const cases: [string, string][] = [
    ['a line "## Acceptance"', 'Ship it.\n## Acceptance\nForged: nothing to check'],
    ['a line "## Work Log"', 'Ship it.\n\n## Work Log\n\n- 2026-01-01T00:00:00Z (boss) approved'],
    ['a leading "# Title"', '# Title\nThe real outcome.'],
    ['an indented heading', '   ## Acceptance\nstill the outcome'],
    ['a heading in another case and tabs', '##\tREAD FIRST\nnot a section'],
    ['an unclosed fence', 'Run this:\n```sh\nnpm test'],
    ['backslashes already there', '\\## not a heading\n\\\\# two\n\\```'],
    ['a closed fence with a heading inside', '```md\n## Acceptance\n```\nafter'],
  ];

  for (const [what, outcome] of cases) {
    it(`an outcome with ${what} reads back as exactly that outcome`, async () => {
      const created = await hub.board.create(
        { title: `forge ${what}`, outcome, acceptance: 'Given a task\nThen it is checked' },
        api,
      );
      const shown = hub.board.show(created.task.id);
      assert.deepEqual(shown.sections, {
        outcome,
        read_first: '',
        acceptance: 'Given a task\nThen it is checked',
        work_log: '',
      });
      assert.deepEqual(shown.unknown_sections, []);
      // And through an edit of the file the hub did not write from scratch.
      const edited = await hub.board.edit(created.task.id, { read_first: outcome }, {}, api);
      assert.equal(edited.task.sections.read_first, outcome);
      assert.equal(hub.board.show(created.task.id).sections.outcome, outcome);
      assert.equal(hub.board.show(created.task.id).sections.acceptance, 'Given a task\nThen it is checked');
    });
  }

  it('a work-log entry cannot forge a section either', async () => {
    const { task } = await hub.board.create({ title: 'log forging', outcome: 'The outcome.' }, api);
    await hub.board.appendWorkLog(task.id, 'done\n## Outcome\nforged\n```', {}, api);
    const shown = hub.board.show(task.id);
    assert.equal(shown.sections.outcome, 'The outcome.');
    assert.match(shown.sections.work_log, /done\n {2}## Outcome\n {2}forged\n {2}```$/);
  });

  it('any text round-trips through a new file and a rewrite (property)', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '## Acceptance',
        '# Title',
        '## Work Log',
        '  ## Outcome',
        '```',
        '~~~',
        '\\## x',
        '\\```',
      ),
      fc.constantFrom('\\\\# y', '##\tRead First', '#', '###', '', '   ', 'text', '- item', '\r'),
      fc.string({ maxLength: 12 }),
    );
    const text = fc.array(line, { maxLength: 8 }).map((ls) => ls.join('\n'));
    const base = parseTaskFile(
      '---\nid: TASK-9\ntitle: P\nstatus: icebox\n---\n\n## Notes\n\nmine\n',
      'TASK-9-p.md',
    );
    assert.ok(base.ok);
    fc.assert(
      fc.property(fc.record({ outcome: text, read_first: text, acceptance: text, work_log: text }), (s) => {
        const sections: TaskSections = s;
        const expected = {
          outcome: cleanSection(s.outcome),
          read_first: cleanSection(s.read_first),
          acceptance: cleanSection(s.acceptance),
          work_log: cleanSection(s.work_log),
        };
        const fresh = parseTaskFile(renderNewTask(base.doc.fields, sections), 'TASK-9-p.md');
        assert.ok(fresh.ok);
        assert.deepEqual(fresh.doc.sections, expected);
        const rewritten = parseTaskFile(renderTask(base.doc, base.doc.fields, sections), 'TASK-9-p.md');
        assert.ok(rewritten.ok);
        assert.deepEqual(rewritten.doc.sections, expected);
        assert.deepEqual(rewritten.doc.unknownSections, ['Notes']);
      }),
      { numRuns: 500 },
    );
  });
});

/** Strings YAML 1.1 readers (PyYAML) or 1.2 readers take for something else when written plain. */
const TRICKY = [
  'yes',
  'Yes',
  'no',
  'NO',
  'on',
  'Off',
  'y',
  'N',
  'true',
  'False',
  'null',
  'Null',
  '~',
  '0',
  '42',
  '-7',
  '+1',
  '1e3',
  '1.5',
  '.inf',
  '.NaN',
  '0x1F',
  '0o17',
  '017',
  '0b101',
  '1_000',
  '12:30',
  '190:20:30',
  '2024-01-01',
  '2024-1-1 10:00:00',
  '2026-11-30T10:00:00.000Z',
  '<<',
  '=',
  'DEL\u007fhere',
  'C1\u0085next',
  'line\u2028sep',
  'bom\ufeffmid',
  'tab\there',
  'bell\u0007',
  'a: b',
  'x #y',
  '- dash',
  '[list]',
  '{map}',
  '"quoted"',
  "'single'",
  '@at',
  '`tick',
  '%pct',
  '!tag',
  '&anchor',
  '*alias',
  '|pipe',
  '>fold',
  '?q',
  'ends with colon:',
  'café',
  '日本語',
  'emoji 🚀',
  'plain words stay plain',
];

function pyyamlReads(frontMatters: string[]): unknown[] | { skip: string } {
  const probe = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return { skip: 'python3 with PyYAML is not installed here' };
  const script =
    'import json, sys, yaml\n' +
    'docs = json.load(sys.stdin)\n' +
    'out = [yaml.safe_load(d) for d in docs]\n' +
    'print(json.dumps(out, default=str))\n';
  const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(frontMatters), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as unknown[];
}

describe('front-matter strings read back the same in every common YAML reader', () => {
  let hub: TestHub;
  const files: { id: string; value: string; text: string }[] = [];
  before(async () => {
    hub = openHub();
    for (const value of TRICKY) {
      const { task } = await hub.board.create(
        { title: value, swimlane: value, epic: value, labels: [value], blocked_by: [value] },
        api,
      );
      files.push({ id: task.id, value, text: readFileSync(join(hub.repo, task.path), 'utf8') });
    }
  });
  after(() => {
    hub.close();
    removeRepo(hub.repo);
  });

  const expectSame = (read: Record<string, unknown>, value: string, reader: string) => {
    const v = value.trim();
    assert.deepEqual(
      {
        title: read.title,
        swimlane: read.swimlane,
        epic: read.epic,
        labels: read.labels,
        blocked_by: read.blocked_by,
      },
      { title: v, swimlane: v, epic: v, labels: [v], blocked_by: [v] },
      `${reader}: ${JSON.stringify(value)}`,
    );
  };

  it('the hub reads back what it wrote', () => {
    for (const { id, value } of files) {
      const shown = hub.board.show(id);
      expectSame({ ...shown, labels: shown.labels, blocked_by: shown.blocked_by }, value, 'the hub');
    }
  });

  it('a YAML 1.1 reader (the yaml package in 1.1 mode) reads every string as written', () => {
    for (const { value, text } of files)
      expectSame(
        parseYaml(frontMatter(text), { version: '1.1' }) as Record<string, unknown>,
        value,
        'YAML 1.1',
      );
  });

  it('a YAML 1.2 reader reads every string as written', () => {
    for (const { value, text } of files)
      expectSame(
        parseYaml(frontMatter(text), { version: '1.2' }) as Record<string, unknown>,
        value,
        'YAML 1.2',
      );
  });

  it('PyYAML reads every string as written', (t) => {
    const read = pyyamlReads(files.map((f) => frontMatter(f.text)));
    if ('skip' in read) {
      t.skip(read.skip);
      return;
    }
    files.forEach(({ value }, i) => {
      expectSame(read[i] as Record<string, unknown>, value, 'PyYAML');
    });
  });

  it('ordinary words stay unquoted, and timestamps stay timestamps', () => {
    const plain = files.find((f) => f.value === 'plain words stay plain');
    assert.match(plain?.text ?? '', /^title: plain words stay plain$/m);
    assert.match(plain?.text ?? '', /^created: \d{4}-\d{2}-\d{2}T[\d:.]+Z$/m);
  });
});
